// netcli account create / account / login <number> / logout: the free account and this
// device's sign-in. Passwords are asked for (never taken on the command line, where every
// user of the machine can read them in the process list).
import type { Command } from 'commander';
import { formatAccount, formatSession } from '../format/account.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface SignInOptions extends CommonOptions {
  password?: boolean;
  deviceName?: string;
}

async function password(rt: Runtime, opts: SignInOptions, prompt: string) {
  return opts.password ? { password: await rt.io.readSecret(prompt) } : {};
}

export function registerAccount(program: Command, rt: Runtime): void {
  const account = program
    .command('account')
    .description('the account: plan, devices and usage; `account create` makes a free one');

  withCommon(account.command('show', { isDefault: true, hidden: true }))
    .description('plan, devices and usage of the signed-in account')
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.account();
      rt.print(opts, answer, () => formatAccount(answer));
    });

  withCommon(account.command('create'))
    .description('create a free account and sign this device in')
    .option('--password', 'protect the account with a password (asked for)')
    .option('--device-name <name>', 'the name this device gets (default: the host name)')
    .action(async (opts: SignInOptions) => {
      const client = await rt.client(opts);
      const body = {
        ...(await password(rt, opts, 'Password for the new account: ')),
        ...(opts.deviceName ? { device_name: opts.deviceName } : {}),
      };
      const session = await rt.progress(
        opts,
        'Creating the account',
        client.createAccount({ body }),
      );
      rt.print(opts, session, () => formatSession(session, true));
    });

  withCommon(program.command('login'))
    .description('sign this device in to an account')
    .argument('<number>', 'the 16-digit account number (spaces and dashes are fine)')
    .option('--password', 'the account has a password (asked for)')
    .option('--device-name <name>', 'the name this device gets (default: the host name)')
    .action(async (number: string, opts: SignInOptions) => {
      const client = await rt.client(opts);
      const body = {
        account_number: number,
        ...(await password(rt, opts, 'Password: ')),
        ...(opts.deviceName ? { device_name: opts.deviceName } : {}),
      };
      const session = await rt.progress(opts, 'Signing in', client.login({ body }));
      rt.print(opts, session, () => formatSession(session, false));
    });

  withCommon(program.command('logout'))
    .description('disconnect, remove this device from the account and forget its sign-in')
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.logout();
      rt.print(opts, answer, () => ['Signed out; this device was removed from the account.']);
    });
}
