// netcli tunnel start --service S --tag T [--region R] / list / stop --tag T: service tunnels,
// each an extra tunnel of this device that carries only its service's traffic, on its own
// interface and session, beside the main connection.
import type { Command } from 'commander';
import { formatTunnelStarted, formatTunnelStopped, formatTunnels } from '../format/services.js';
import { flags, withCommon, type CommonOptions, type Runtime } from '../runtime.js';

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
  const { t } = rt;
  const tunnel = program.command('tunnel').description(t('netcli.tunnel.description'));

  withCommon(tunnel.command('start'))
    .description(t('netcli.tunnel.start'))
    .requiredOption(flags('--service', '<name>'), t('netcli.tunnel.service'))
    .requiredOption(flags('--tag', '<tag>'), t('netcli.tunnel.tag'))
    .option(flags('--region', '<region>'), t('netcli.tunnel.region'))
    .option(flags('--protocol', '<protocol>'), t('netcli.tunnel.protocol'))
    .action(async (opts: StartOptions) => {
      const client = await rt.client(opts);
      const started = await rt.progress(
        opts,
        t('netcli.tunnel.starting', { tag: opts.tag }),
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
      rt.print(opts, started, () => formatTunnelStarted(started, t));
    });

  withCommon(tunnel.command('list', { isDefault: true }))
    .description(t('netcli.tunnel.list'))
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.listTunnels();
      rt.print(opts, answer, () => formatTunnels(answer, t));
    });

  withCommon(tunnel.command('stop'))
    .description(t('netcli.tunnel.stop'))
    .requiredOption(flags('--tag', '<tag>'), t('netcli.tunnel.stopTag'))
    .action(async (opts: StopOptions) => {
      const client = await rt.client(opts);
      const stopped = await rt.progress(
        opts,
        t('netcli.tunnel.stopping', { tag: opts.tag }),
        client.stopTunnel({ params: { tag: opts.tag } }),
      );
      rt.print(opts, stopped, () => formatTunnelStopped(stopped, t));
      if (!stopped.unregistered)
        rt.note(opts, t('netcli.tunnel.notUnregistered', { tag: stopped.tag }));
    });
}
