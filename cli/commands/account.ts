// netcli account create / account / login <number> / logout: the free account and this
// device's sign-in. Passwords are asked for (never taken on the command line, where every
// user of the machine can read them in the process list).
import type { Command } from 'commander';
import { formatAccount, formatSession } from '../format/account.js';
import { flags, withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface SignInOptions extends CommonOptions {
  password?: boolean;
  deviceName?: string;
}

async function password(rt: Runtime, opts: SignInOptions, prompt: string) {
  return opts.password ? { password: await rt.io.readSecret(prompt) } : {};
}

export function registerAccount(program: Command, rt: Runtime): void {
  const { t } = rt;
  const account = program.command('account').description(t('netcli.account.description'));

  withCommon(account.command('show', { isDefault: true, hidden: true }))
    .description(t('netcli.account.show'))
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.account();
      rt.print(opts, answer, () => formatAccount(answer, t));
    });

  withCommon(account.command('create'))
    .description(t('netcli.account.create'))
    .option('--password', t('netcli.account.createPassword'))
    .option(flags('--device-name', '<name>'), t('netcli.account.deviceName'))
    .action(async (opts: SignInOptions) => {
      const client = await rt.client(opts);
      const body = {
        ...(await password(rt, opts, t('netcli.account.newPassword'))),
        ...(opts.deviceName ? { device_name: opts.deviceName } : {}),
      };
      const session = await rt.progress(
        opts,
        t('netcli.account.creating'),
        client.createAccount({ body }),
      );
      rt.print(opts, session, () => formatSession(session, true, t));
    });

  withCommon(program.command('login'))
    .description(t('netcli.account.login'))
    .argument('<number>', t('netcli.account.number'))
    .option('--password', t('netcli.account.loginPassword'))
    .option(flags('--device-name', '<name>'), t('netcli.account.deviceName'))
    .action(async (number: string, opts: SignInOptions) => {
      const client = await rt.client(opts);
      const body = {
        account_number: number,
        ...(await password(rt, opts, t('netcli.account.password'))),
        ...(opts.deviceName ? { device_name: opts.deviceName } : {}),
      };
      const session = await rt.progress(
        opts,
        t('netcli.account.signingIn'),
        client.login({ body }),
      );
      rt.print(opts, session, () => formatSession(session, false, t));
    });

  withCommon(program.command('logout'))
    .description(t('netcli.account.logout'))
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.logout();
      rt.print(opts, answer, () => [t('netcli.account.signedOut')]);
    });
}
