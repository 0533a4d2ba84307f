// netcli connect / disconnect: one-click connect with the spec's choices, answered once the
// tunnel carries traffic; Ctrl-C while connecting cancels the attempt in the engine.
import type { Command } from 'commander';
import { translator, type Translate } from '../../contracts/index.js';
import { CliError, describeFailure } from '../errors.js';
import { formatConnect, formatStatus } from '../format/connection.js';
import { flags, withCommon, type CommonOptions, type Runtime } from '../runtime.js';

/** What a failed connect adds while the kill switch holds. */
export const blockedHint = (t: Translate) => t('netcli.connect.blocked');
export const BLOCKED_HINT = blockedHint(translator('en'));

interface ConnectOptions extends CommonOptions {
  region?: string;
  mode?: string;
  protocol?: string;
  encryption?: string;
  usage?: string;
  platform?: string;
  via?: string;
  verbose?: boolean;
}

export function registerConnection(program: Command, rt: Runtime): void {
  const { t } = rt;
  withCommon(program.command('connect'))
    .description(t('netcli.connect.description'))
    .option(flags('--region', '<region>'), t('netcli.connect.region'))
    .option(flags('--mode', '<mode>'), t('netcli.connect.mode'))
    .option(flags('--protocol', '<protocol>'), t('netcli.connect.protocol'))
    .option(flags('--encryption', '<cipher>'), t('netcli.connect.encryption'))
    .option(flags('--usage', '<usage>'), t('netcli.connect.usage'))
    .option(flags('--platform', '<platform>'), t('netcli.connect.platform'))
    .option(flags('--via', '<region>'), t('netcli.connect.via'))
    .option('--verbose', t('netcli.connect.verbose'))
    .action(async (opts: ConnectOptions) => {
      const client = await rt.client(opts);
      const body = {
        ...(opts.region ? { region: opts.region } : {}),
        ...(opts.mode ? { mode: opts.mode } : {}),
        ...(opts.protocol ? { protocol: opts.protocol } : {}),
        ...(opts.encryption ? { encryption: opts.encryption } : {}),
        ...(opts.usage ? { usage: opts.usage } : {}),
        ...(opts.platform ? { platform: opts.platform } : {}),
        ...(opts.via ? { via: opts.via } : {}),
      };
      const answer = await rt
        .progress(
          opts,
          t('netcli.connect.connecting'),
          client.connect({ body, signal: rt.io.interrupts() }),
        )
        .catch(async (e: unknown) => {
          // A failed connect leaves the kill switch holding: say so, or the user finds a host
          // cut off without knowing why.
          const status = await client.status({ timeoutMs: 2_000 }).catch(() => null);
          if (status?.status !== 'error' || status.protection.kill_switch !== 'active') throw e;
          const f = describeFailure(e, rt.socketFor(opts).path, t);
          throw new CliError(f.message, [...f.hints, blockedHint(t)], f.exitCode);
        });
      rt.print(opts, answer, () => formatConnect(answer, opts.verbose === true, t));
    });

  withCommon(program.command('disconnect'))
    .description(t('netcli.disconnect.description'))
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const status = await rt.progress(
        opts,
        t('netcli.disconnect.disconnecting'),
        client.disconnect(),
      );
      rt.print(opts, status, () => formatStatus(status, t));
    });
}
