// netcli connect / disconnect: one-click connect with the spec's choices, answered once the
// tunnel carries traffic; Ctrl-C while connecting cancels the attempt in the engine.
import type { Command } from 'commander';
import { CliError, describeFailure } from '../errors.js';
import { formatConnect, formatStatus } from '../format/connection.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

/** What a failed connect adds while the kill switch holds. */
export const BLOCKED_HINT =
  'traffic stays blocked while the kill switch holds: netcli disconnect opens it';

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
  withCommon(program.command('connect'))
    .description('connect; returns once traffic flows, with the node, latency and exit IP')
    .option('--region <region>', 'auto, a region id, or a region rule’s name')
    .option('--mode <mode>', 'secure or stream')
    .option('--protocol <protocol>', 'wireguard or ferry')
    .option('--encryption <cipher>', 'AES-256-GCM or ChaCha20-Poly1305')
    .option('--usage <usage>', 'remote-work, streaming or general')
    .option(
      '--platform <platform>',
      'stream mode for a platform (netflix, youtube...): a node verified for it, its traffic in the tunnel',
    )
    .option(
      '--via <region>',
      'multihop: enter at a relay of this region (auto: one the service offers), leave at the node chosen as usual',
    )
    .option('--verbose', 'also say why this node was chosen, and the notices')
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
        .progress(opts, 'Connecting', client.connect({ body, signal: rt.io.interrupts() }))
        .catch(async (e: unknown) => {
          // A failed connect leaves the kill switch holding: say so, or the user finds a host
          // cut off without knowing why.
          const status = await client.status({ timeoutMs: 2_000 }).catch(() => null);
          if (status?.status !== 'error' || status.protection.kill_switch !== 'active') throw e;
          const f = describeFailure(e, rt.socketFor(opts).path);
          throw new CliError(f.message, [...f.hints, BLOCKED_HINT], f.exitCode);
        });
      rt.print(opts, answer, () => formatConnect(answer, opts.verbose === true));
    });

  withCommon(program.command('disconnect'))
    .description('disconnect and remove what the connection made')
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const status = await rt.progress(opts, 'Disconnecting', client.disconnect());
      rt.print(opts, status, () => formatStatus(status));
    });
}
