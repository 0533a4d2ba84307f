// netcli api-access list|test|use: how the control plane is reached (direct, through relays, a
// proxy). test tries a method without switching (exit 1 when it fails); use switches once the
// method reaches the service, and keeps the previous one when it does not.
import type { Command } from 'commander';
import type { Translate } from '../../contracts/index.js';
import { formatApiAccessList, formatApiAccessTest } from '../format/api-access.js';
import { EXIT_REFUSED } from '../errors.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

/** The progress line for a method: a proxy's user name and password left out. */
const trying = (method: string, t: Translate) =>
  t('netcli.apiAccess.trying', { method: method.replace(/\/\/[^@/]*@/, '//') });

export function registerApiAccess(program: Command, rt: Runtime): void {
  const { t } = rt;
  const group = program.command('api-access').description(t('netcli.apiAccess.description'));
  withCommon(group.command('list'))
    .description(t('netcli.apiAccess.list'))
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const list = await client.apiAccess();
      rt.print(opts, list, () => formatApiAccessList(list, t));
    });
  withCommon(group.command('test'))
    .description(t('netcli.apiAccess.test'))
    .argument('<method>', t('netcli.apiAccess.method'))
    .action(async (method: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      const result = await rt.progress(
        opts,
        trying(method, t),
        client.testApiAccess({ body: { method }, signal: rt.io.interrupts() }),
      );
      rt.print(opts, result, () => formatApiAccessTest(result, t));
      if (!result.ok) rt.exitCode = EXIT_REFUSED;
    });
  withCommon(group.command('use'))
    .description(t('netcli.apiAccess.use'))
    .argument('<method>', t('netcli.apiAccess.methodOrAuto'))
    .action(async (method: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      const result = await rt.progress(
        opts,
        trying(method, t),
        client.useApiAccess({ body: { method }, signal: rt.io.interrupts() }),
      );
      rt.print(opts, result, () => [
        t('netcli.apiAccess.switched', { setting: result.setting, message: result.test.message }),
      ]);
    });
}
