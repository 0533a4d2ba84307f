// The connecting state (also a failover's attempt, which stays `reconnecting`): the control
// plane's connect answer comes first, in the state that was (its node choice is what talpid's
// relay selection is: the connecting state's policy needs the node), then the state is entered
// with its whole policy in one nftables transaction (blocking but the control plane and the
// node's transports), then the tunnel. One call to the control plane on this path; a fallback
// from WireGuard to Ferry over TCP adds one.
import {
  ApiError,
  type ClientConfig,
  type ConnectResponse,
  type ControlClient,
  type Usage,
} from '../../contracts/index.js';
import type { EngineContext } from '../engine-context.js';
import { FerryError } from '../errors.js';
import { isThisMachine } from '../local-node.js';
import { throwIfAborted } from '../operation-queue.js';
import type { GuardFacts } from '../protection/connection-guard.js';
import type { Endpoint } from '../protection/firewall-policy.js';
import { probeEndpoints } from '../catalog/node-latencies.js';
import type { SplitSets } from '../split/split-tunnel.js';
import { connectProtocol, type TransportChange } from '../transports/plan.js';
import { attemptEndpoints, bringUp, nodeAddress, planFor, type TunnelUp } from './bring-up.js';
import type { ConnectReason, ConnectTarget } from './machine.js';
import type { ConnectionMemory } from './memory.js';
import { statePolicy } from './policy.js';
import { teardown } from './teardown.js';

/** The stream transport an obfuscation setting names (none under auto and off). */
function streamSetting(obfuscation: ClientConfig['obfuscation']): 'tcp' | 'tls' | undefined {
  if (obfuscation === 'tls') return 'tls';
  return obfuscation === 'tcp' || obfuscation === 'on' ? 'tcp' : undefined;
}

/** What a connect is for, beyond its request. */
export interface ConnectOptions {
  reason: ConnectReason;
  /** Failover: the lost and unreachable nodes, passed over; the lost tunnel goes first. */
  unreachable?: string[];
  /** Part of a recovery: a failure leaves the engine reconnecting (the recovery goes on). */
  recovering?: boolean;
  /** A switch of the tunnel's transport while connected (the transport watch's). */
  change?: TransportChange;
}

export interface Connecting {
  config: ClientConfig;
  control: ControlClient;
  target: ConnectTarget;
  usage: Usage;
  signal: AbortSignal;
  opts: ConnectOptions;
}

/** A tunnel that carries traffic, and what the connected state's policy needs of the attempt. */
export interface Established {
  up: TunnelUp;
  split: SplitSets | null;
  /** The exit address before the tunnel (the current tunnel's when switching). */
  before: string | null;
  switching: boolean;
  nodes: Endpoint[];
  controlPlane: Endpoint[];
  /** Stream mode's pins the attempt kept (none in another mode). */
  pinned: GuardFacts['pinned'];
}

/**
 * The state change, once the control plane has chosen the node (until then the state that was
 * holds, with its policy: a live tunnel, a block, or nothing): switching a live connection goes
 * through reconnecting; a tunnel that was lost is already there; otherwise a new connection.
 */
export function enterConnecting(
  mem: ConnectionMemory,
  target: ConnectTarget,
  reason: ConnectReason,
  change?: TransportChange,
): void {
  const state = mem.machine.state;
  if (state === 'connected')
    mem.machine.dispatch({
      type: 'tunnel-lost',
      reason: change ? 'transport-changed' : 'settings-changed',
      target,
    });
  else if (state === 'disconnected' || state === 'error')
    mem.machine.dispatch({ type: 'connect', reason, target });
}

export async function connecting(
  ctx: EngineContext,
  mem: ConnectionMemory,
  c: Connecting,
): Promise<Established> {
  const { config, control, target, signal, opts } = c;
  // A lost tunnel goes first: its routes would swallow the control plane's calls.
  if (mem.live && opts.unreachable) await teardown(ctx, mem, mem.live);
  const switching = mem.live !== null;
  // Which network this is, and what got through here before (the autopilot starts with it).
  const here = await ctx.networks.here();
  // A setting that names TCP or TLS wants a node that serves it (Ferry's; WireGuard has neither).
  const stream = streamSetting(config.obfuscation);
  const entryRegion = await entryRegionOf(control, target.entryRegion ?? null, signal);
  const ask = (protocol: ClientConfig['protocol']) =>
    control.connect({
      body: {
        ...(entryRegion ? { entry_region: entryRegion } : {}),
        protocol,
        ...(protocol === 'ferry' && stream ? { transport: stream } : {}),
        encryption: target.encryption,
        region: target.region,
        usage: c.usage,
        ...(Object.keys(ctx.latencies.smoothed).length > 0
          ? { latencies: { ...ctx.latencies.smoothed } }
          : {}),
        // The nodes to measure only when the last round is old: a small answer otherwise.
        ...(ctx.latencies.stale() ? { probe_nodes: true } : {}),
        ...(opts.unreachable?.length ? { unreachable: opts.unreachable } : {}),
        ...(target.platform ? { platform: target.platform } : {}),
      },
      signal,
    });
  const protocol = connectProtocol(
    target.protocol,
    config.obfuscation,
    here.remembered,
    opts.change,
  );
  const asked = await ask(protocol).catch((e: unknown) => {
    // Ferry asked for at once, where the region has no Ferry node: the user's protocol then
    // (not for TLS, which WireGuard cannot stand in for).
    if (
      protocol !== target.protocol &&
      stream !== 'tls' &&
      e instanceof ApiError &&
      e.code === 'no-node-available'
    )
      return ask(target.protocol);
    throw e;
  });
  // Multihop: the tunnel is with the exit (its keys), at the entry's address and ports.
  const answer = throughEntry(asked);
  throwIfAborted(signal);
  ctx.reachedService(control, config);
  mem.attemptNode = answer.node.id;
  ctx.latencies.know(answer);
  if (await (ctx.deps.isThisMachine ?? isThisMachine)(answer.node.endpoint_host)) {
    throw new FerryError(
      'node-is-local',
      `node ${answer.node.id} runs on this machine: a full tunnel to it would loop its own ` +
        'traffic back into the tunnel; connect from another machine (or try npm run demo, ' +
        'which puts the client in a namespace of its own)',
    );
  }
  // Before: the address outside any tunnel, as the service saw this connect (or the current
  // tunnel's, when switching): the home country's evidence for the split tunnel.
  const before = switching ? mem.exitAfter : (answer.client_ip ?? null);
  const split = await ctx.split.setsFor(config, switching ? mem.exitBefore : before);
  if (!switching) mem.exitBefore = before;
  const plan = planFor(ctx, answer, config, opts, here.remembered);
  const endpoint = await nodeAddress(ctx, answer);
  const controlPlane = await ctx.controlEndpoints(config);
  // A new connection is connecting; a switch or a failover's attempt is reconnecting.
  const fresh = mem.machine.state === 'disconnected' || mem.machine.state === 'error';
  const stage = fresh ? 'connecting' : 'reconnecting';
  // Stream mode's pins stay through a reconnect; another mode has none.
  const pinned = target.platform ? ctx.guard.facts.pinned : [];
  let nodes = attemptEndpoints(answer, endpoint, plan.attempts);
  // Fresh latencies of the region's nodes for smart routing and failover, measured while the
  // tunnel comes up: only on a network where UDP got through before and the tunnel starts with
  // UDP (the probes are UDP: where the tunnel hides in TCP or TLS they would give it away), and
  // never once connected, nor through an entry relay (they would go to the exits themselves).
  const round =
    !answer.entry &&
    here.remembered === 'udp' &&
    (plan.attempts[0]?.transport === 'udp' || plan.attempts[0]?.race === 'udp')
      ? ctx.latencies.due(answer.region)
      : [];
  const probes = probeEndpoints(round);
  const allowNodes = (allowed: Endpoint[]) => {
    nodes = allowed;
    return ctx.guard.apply(
      statePolicy(stage, config, { controlPlane, nodes, probes, split, pinned }),
    );
  };
  // The old tunnel goes before the new one comes: one default route at a time (reconnecting,
  // under the connected state's policy, which blocks with the kill switch).
  if (mem.live) {
    enterConnecting(mem, target, opts.reason, opts.change);
    await teardown(ctx, mem, mem.live);
  }
  // Every transport this connect may use is let out now: one change of the table, not one per
  // try; the state is said once its policy holds.
  await allowNodes(nodes);
  enterConnecting(mem, target, opts.reason, opts.change);
  const [up] = await Promise.all([
    bringUp(
      ctx,
      mem,
      { ...c, first: answer, recovering: opts.recovering ?? false, allowNodes },
      plan,
      endpoint,
    ),
    ctx.latencies.refresh(round, signal),
  ]);
  // What got through is where the next connect on this network starts (never fatal).
  await ctx.networks.remember(here.network, up.transport).catch(() => undefined);
  ctx.api.tunnel(true);
  ctx.deps.resetConnections?.();
  return { up, split, before, switching, nodes, controlPlane, pinned };
}

/**
 * The entry region a multihop connect asks for: the one named, or under `auto` the first the
 * service offers (none offered: a clear error); null: one hop.
 */
async function entryRegionOf(
  control: ControlClient,
  asked: string | null,
  signal: AbortSignal,
): Promise<string | null> {
  if (asked === null) return null;
  if (asked !== 'auto') return asked;
  const { regions } = await control.listRegions({ signal });
  const entry = regions.find((r) => r.entry && r.allowed) ?? regions.find((r) => r.entry);
  if (!entry)
    throw new FerryError(
      'config-invalid',
      'multihop: the service offers no entry region (netcli config set multihop never)',
    );
  return entry.id;
}

/** A multihop answer as the tunnel uses it: the exit's keys at the entry's address and ports. */
export function throughEntry(answer: ConnectResponse): ConnectResponse {
  const entry = answer.entry;
  if (!entry) return answer;
  return {
    ...answer,
    node: {
      ...answer.node,
      endpoint_host: entry.endpoint_host,
      wireguard_port: entry.wireguard_port,
      ferry_port: entry.ferry_port,
      tls_port: entry.tls_port,
    },
  };
}
