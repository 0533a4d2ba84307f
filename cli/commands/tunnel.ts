// netcli tunnel start --service S --tag T [--region R] / list / stop --tag T: service tunnels,
// each an extra tunnel of this device that carries only its service's traffic, on its own
// interface and session, beside the main connection.
import type { Command } from 'commander';
import { formatTunnelStarted, formatTunnelStopped, formatTunnels } from '../format/services.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface StartOptions extends CommonOptions {
  service: string;
  tag: string;
  region?: string;
  protocol?: string;
}

interface StopOptions extends CommonOptions {
  tag: string;
}

export function registerTunnel(program: Command, rt: Runtime): void {
  const tunnel = program
    .command('tunnel')
    .description('service tunnels: extra tunnels that carry one service’s traffic');

  withCommon(tunnel.command('start'))
    .description('start a tunnel for a service; returns once traffic flows through it')
    .requiredOption('--service <name>', 'the service (netcli service list)')
    .requiredOption('--tag <tag>', 'what to call the tunnel: letters, digits and dashes')
    .option('--region <region>', 'auto, a region id, or a region rule’s name (default: config)')
    .option('--protocol <protocol>', 'wireguard or ferry (default: config)')
    .action(async (opts: StartOptions) => {
      const client = await rt.client(opts);
      const started = await rt.progress(
        opts,
        `Starting tunnel ${opts.tag}`,
        client.startTunnel({
          body: {
            service: opts.service,
            tag: opts.tag,
            ...(opts.region ? { region: opts.region } : {}),
            ...(opts.protocol ? { protocol: opts.protocol } : {}),
          },
          signal: rt.io.interrupts(),
        }),
      );
      rt.print(opts, started, () => formatTunnelStarted(started));
    });

  withCommon(tunnel.command('list', { isDefault: true }))
    .description('the running service tunnels: tag, service, region, node, latency, interface')
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.listTunnels();
      rt.print(opts, answer, () => formatTunnels(answer));
    });

  withCommon(tunnel.command('stop'))
    .description('stop a service tunnel: its interface and routes go, and its registration')
    .requiredOption('--tag <tag>', 'the tunnel’s tag (netcli tunnel list)')
    .action(async (opts: StopOptions) => {
      const client = await rt.client(opts);
      const stopped = await rt.progress(
        opts,
        `Stopping tunnel ${opts.tag}`,
        client.stopTunnel({ params: { tag: opts.tag } }),
      );
      rt.print(opts, stopped, () => formatTunnelStopped(stopped));
      if (!stopped.unregistered)
        rt.note(
          opts,
          `the control plane could not be told; the next netcli tunnel start --tag ${stopped.tag} here takes its registration over`,
        );
    });
}
