// The connected state: its whole policy in one nftables transaction (blocking but the tunnel,
// its node and its resolvers: no probe leaves to another node while connected), the system resolver
// pointed at the engine's (engine/dns), and one check-in with the control plane through the tunnel (the first
// latency report, whose answer carries the exit address): the second and last call of a connect.
import type { LocalConnectResponse, Notice } from '../../contracts/index.js';
import type { EngineContext } from '../engine-context.js';
import { throwIfAborted } from '../operation-queue.js';
import { dnsServers } from '../protection/connection-guard.js';
import type { ActiveTunnel } from '../tunnel/tunnel.js';
import type { Connecting, Established } from './connecting.js';
import { LatencyReporter, reportedLatency } from './latency-report.js';
import type { ConnectionMemory, LiveTunnel } from './memory.js';
import { platformAddresses } from './platform-pins.js';
import { statePolicy } from './policy.js';

export async function enterConnected(
  ctx: EngineContext,
  mem: ConnectionMemory,
  c: Connecting,
  est: Established,
  onTunnelEvent: (live: LiveTunnel, e: Parameters<Parameters<ActiveTunnel['on']>[0]>[0]) => void,
): Promise<Pick<LocalConnectResponse, 'exit_ip' | 'routing'>> {
  const { config, control, target, signal, opts } = c;
  const { up, split } = est;
  const dns = dnsServers(config, up.answer);
  // Asked before the system resolver changes: the resolvers the host had are the home network's.
  // A resolver configured as `dns` is reached through the tunnel, never around it.
  const homeDns = (await ctx.dns.homeServers()).filter((a) => !dns.includes(a));
  await ctx.guard.apply(
    statePolicy('connected', config, {
      controlPlane: est.controlPlane,
      nodes: est.nodes,
      dns,
      homeDns,
      split,
      pinned: est.pinned,
    }),
  );
  ctx.dns.setRules(await ctx.splitRules.list().catch(() => []));
  const dnsNotice = await ctx.dns.use(
    { tunnel: dns, home: homeDns, isHome: ctx.split.isHome() },
    up.tunnel.interfaceName,
  );
  // Stream mode: the platform's addresses (as the tunnel's resolver gives them, which needs the
  // policy above) take the tunnel even where the split tunnel would send them directly.
  if (target.platform && split) {
    const pinned = await platformAddresses(ctx.platforms, target.platform, ctx.deps.lookupHost);
    await ctx.guard.update({ pinned });
  }
  const reporter = new LatencyReporter((latency_ms, session_id) =>
    control.reportLatency({ body: { latency_ms, session_id }, timeoutMs: 5_000 }),
  );
  const after = await checkIn(ctx, c, up.answer.session_id, up.tunnel.latencyMs());
  reporter.reportedNow();
  throwIfAborted(signal);
  const live: LiveTunnel = {
    answer: up.answer,
    tunnel: up.tunnel,
    transport: up.transport,
    transportReason: up.reason,
    stopEvents: () => undefined,
    reporter,
  };
  mem.live = live;
  mem.exitAfter = after;
  // UDP tried again while connected and not through: back where it was, nothing to tell.
  const unchanged = opts.change?.kind === 'retry-udp' && up.transport !== 'udp';
  const notices: Notice[] = [...up.answer.notices, ...(unchanged ? [] : up.notices)];
  const lost = opts.recovering ? mem.lostNode : null;
  if (lost !== null && lost !== up.answer.node.id) {
    notices.push({
      code: 'failover',
      message: `node ${lost} stopped answering: moved to node ${up.answer.node.id} (${up.answer.region})`,
      params: { region: up.answer.region },
    });
  }
  mem.lostNode = null;
  if (ctx.split.notice) notices.push(ctx.split.notice);
  if (dnsNotice) notices.push(dnsNotice);
  mem.notices = notices;
  live.stopEvents = up.tunnel.on((e) => onTunnelEvent(live, e));
  mem.machine.dispatch({
    type: 'tunnel-up',
    tunnel: {
      nodeId: up.answer.node.id,
      region: up.answer.region,
      protocol: up.answer.protocol,
      cipher: up.answer.cipher,
      interfaceName: up.tunnel.interfaceName,
    },
    latencyMs: up.tunnel.latencyMs(),
  });
  for (const notice of notices) ctx.emit({ type: 'notice', notice });
  return {
    exit_ip: { before: est.switching ? mem.exitBefore : est.before, after },
    routing: up.answer.routing,
  };
}

/**
 * The tunnel's first latency, told to the control plane through the tunnel: its answer carries
 * the address the service sees (the exit check). Null when it could not be asked (never fatal).
 */
async function checkIn(
  ctx: EngineContext,
  c: Connecting,
  sessionId: string,
  latencyMs: number,
): Promise<string | null> {
  try {
    const answer = await c.control.reportLatency({
      body: { latency_ms: reportedLatency(latencyMs), session_id: sessionId },
      signal: c.signal,
      timeoutMs: ctx.deps.exitCheckTimeoutMs ?? 4_000,
    });
    return answer.client_ip ?? null;
  } catch {
    return null;
  }
}
