// netcli api-access list|test|use: how the control plane is reached (direct, through relays, a
// proxy). test tries a method without switching (exit 1 when it fails); use switches once the
// method reaches the service, and keeps the previous one when it does not.
import type { Command } from 'commander';
import { formatApiAccessList, formatApiAccessTest } from '../format/api-access.js';
import { EXIT_REFUSED } from '../errors.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

const METHOD_HELP =
  'direct, relays, or a proxy socks5://[user:password@]host:port or http://host:port';

/** The progress line for a method: a proxy's user name and password left out. */
const trying = (method: string) => `Trying ${method.replace(/\/\/[^@/]*@/, '//')}`;

export function registerApiAccess(program: Command, rt: Runtime): void {
  const group = program
    .command('api-access')
    .description('how the control plane is reached: directly, through relays, or a proxy');
  withCommon(group.command('list'))
    .description('the methods, the one in use and the relay list')
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const list = await client.apiAccess();
      rt.print(opts, list, () => formatApiAccessList(list));
    });
  withCommon(group.command('test'))
    .description('try a method without switching to it (exit 1 when it cannot reach the service)')
    .argument('<method>', METHOD_HELP)
    .action(async (method: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      const result = await rt.progress(
        opts,
        trying(method),
        client.testApiAccess({ body: { method }, signal: rt.io.interrupts() }),
      );
      rt.print(opts, result, () => formatApiAccessTest(result));
      if (!result.ok) rt.exitCode = EXIT_REFUSED;
    });
  withCommon(group.command('use'))
    .description(
      'switch to a method (or auto) once it reaches the service; else keep the one in use',
    )
    .argument('<method>', `auto, ${METHOD_HELP}`)
    .action(async (method: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      const result = await rt.progress(
        opts,
        trying(method),
        client.useApiAccess({ body: { method }, signal: rt.io.interrupts() }),
      );
      rt.print(opts, result, () => [`API access: ${result.setting} (${result.test.message})`]);
    });
}
