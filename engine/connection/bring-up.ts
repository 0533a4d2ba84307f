// The tunnel for a connect answer, over the transports of the plan (engine/transports: the
// autopilot's, or the one the obfuscation setting names), in order: the next one when the path
// failed the last (the node never answered, or nothing crossed). WireGuard falls back to Ferry
// through a second connect answer, for Ferry (the one extra call a fallback makes); the user's
// protocol setting stays as it is. What got through is remembered for this network.
import { isIP } from 'node:net';

import type {
  ClientConfig,
  ConnectResponse,
  ControlClient,
  Notice,
  Transport,
  TransportReason,
  Usage,
} from '../../contracts/index.js';
import type { EngineContext } from '../engine-context.js';
import type { Endpoint } from '../protection/firewall-policy.js';
import { FerryError } from '../errors.js';
import { tunnelInterfaceName } from '../tunnel/names.js';
import type { ActiveTunnel } from '../tunnel/tunnel.js';
import { isPathFailure, transportReason, type FailedAttempt } from '../transports/autopilot.js';
import { transportNotice } from '../transports/notices.js';
import {
  transportPlan,
  transportPort,
  type TransportAttempt,
  type TransportChange,
  type TransportPlan,
} from '../transports/plan.js';
import type { ConnectTarget } from './machine.js';
import type { ConnectionMemory } from './memory.js';

/**
 * Keepalives of the main tunnel every second: Ferry's carry its round trip, so a silent node is
 * noticed within about two of them, and failover starts at once.
 */
const LIVENESS_KEEPALIVE_SECONDS = 1;

/** What a race's UDP ran into when the stream beside it won (UDP had the head start). */
const LOST_RACE = new FerryError(
  'node-unreachable',
  'UDP went unanswered while the stream got through',
);

/** How long a failover's attempt waits for a node (a user's connect waits the manager's 10 s). */
const RECOVERY_ATTEMPT_MS = 4_000;

export interface BringUp {
  control: ControlClient;
  first: ConnectResponse;
  config: ClientConfig;
  target: ConnectTarget;
  usage: Usage;
  signal: AbortSignal;
  recovering: boolean;
  /** Lets these node endpoints out (the connecting state's policy, with the nodes in it). */
  allowNodes: (nodes: Endpoint[]) => Promise<void>;
}

export interface TunnelUp {
  tunnel: ActiveTunnel;
  answer: ConnectResponse;
  transport: Transport;
  reason: TransportReason;
  notices: Notice[];
}

/**
 * The transports this answer may be tried over, in order, starting with what worked on this
 * network before (`remembered`) under the autopilot.
 */
export function planFor(
  ctx: EngineContext,
  answer: ConnectResponse,
  config: ClientConfig,
  opts: { recovering?: boolean; change?: TransportChange },
  remembered: Transport | null,
): TransportPlan {
  const recovering = opts.recovering ?? false;
  const plan = transportPlan({
    protocol: answer.protocol,
    node: answer.node,
    obfuscation: config.obfuscation,
    remembered,
    ...(ctx.deps.udpAttemptMs === undefined ? {} : { udpAttemptMs: ctx.deps.udpAttemptMs }),
    ...(opts.change ? { change: opts.change } : {}),
  });
  return {
    ...plan,
    attempts: plan.attempts.map((a) =>
      // A failover does not wait long for a node that may be down too: the next one is tried.
      recovering && a.timeoutMs === undefined ? { ...a, timeoutMs: RECOVERY_ATTEMPT_MS } : a,
    ),
  };
}

/** The node endpoints the attempts use (the kill switch lets addresses out, not names). */
export function attemptEndpoints(
  answer: ConnectResponse,
  address: string,
  attempts: readonly TransportAttempt[],
): Endpoint[] {
  const endpoint = (a: TransportAttempt): Endpoint => ({
    address,
    port: transportPort(answer.node, a.protocol, a.transport),
    // TLS is a TCP connection to the node's TLS port.
    protocol: a.transport === 'udp' ? 'udp' : 'tcp',
  });
  return attempts.flatMap((a) =>
    a.race === 'udp'
      ? [endpoint({ protocol: a.protocol, transport: 'udp' }), endpoint(a)]
      : [endpoint(a)],
  );
}

export async function bringUp(
  ctx: EngineContext,
  mem: ConnectionMemory,
  b: BringUp,
  plan: TransportPlan,
  endpoint: string,
): Promise<TunnelUp> {
  const { attempts } = plan;
  const failed: FailedAttempt[] = [];
  // The Ferry session of a WireGuard connect that falls back: asked for once, for every Ferry
  // transport after it.
  let ferry: { answer: ConnectResponse; address: string } | null = null;
  for (const [i, attempt] of attempts.entries()) {
    let answer = b.first;
    let address = endpoint;
    if (attempt.protocol !== b.first.protocol) {
      ferry ??= await ferrySession(ctx, mem, b, endpoint, attempts.slice(i));
      ({ answer, address } = ferry);
    }
    try {
      const tunnel = await ctx.deps.tunnels.up(
        {
          answer: {
            ...answer,
            node: { ...answer.node, endpoint_host: address },
            // A lower MTU of the user's (a path that drops large packets), never a higher one.
            tunnel: {
              ...answer.tunnel,
              mtu:
                b.config.mtu === 'auto'
                  ? answer.tunnel.mtu
                  : Math.min(b.config.mtu, answer.tunnel.mtu),
            },
          },
          privateKey: await ctx.keys.privateKey(answer.protocol),
          transport: attempt.transport,
          ...(attempt.race === 'udp' ? { raceUdp: true } : {}),
          routes: { kind: 'all' },
          interfaceName: ctx.deps.interfaceName?.() ?? tunnelInterfaceName('main'),
          keepaliveSeconds: LIVENESS_KEEPALIVE_SECONDS,
          ...(attempt.timeoutMs === undefined ? {} : { timeoutMs: attempt.timeoutMs }),
        },
        b.signal,
      );
      // A race's winner; a stream that won it means UDP went unanswered meanwhile.
      const transport = tunnel.transport();
      if (attempt.race === 'udp' && transport !== 'udp')
        failed.push({
          attempt: { protocol: attempt.protocol, transport: 'udp' },
          error: LOST_RACE,
        });
      const reason = transportReason(plan, transport, failed);
      // Said when the tunnel is not what the user chose: WireGuard became Ferry, or UDP another.
      const notice = transportNotice(b.target.protocol, { ...attempt, transport }, plan, reason);
      return { tunnel, answer, transport, reason, notices: notice ? [notice] : [] };
    } catch (e) {
      // Only a path that failed is worth another transport: a local failure ends the connect.
      if (!isPathFailure(e) || i === attempts.length - 1 || b.signal.aborted) throw e;
      failed.push({ attempt, error: e });
    }
  }
  throw new TypeError('a transport plan has at least one attempt');
}

/**
 * A session for Ferry, for a WireGuard connect whose UDP failed: the control plane keeps the
 * device on its node when it can; another node's transports are let out.
 */
async function ferrySession(
  ctx: EngineContext,
  mem: ConnectionMemory,
  b: BringUp,
  endpoint: string,
  rest: readonly TransportAttempt[],
): Promise<{ answer: ConnectResponse; address: string }> {
  const answer = await b.control.connect({
    body: {
      protocol: 'ferry',
      encryption: b.target.encryption,
      region: b.first.node.region,
      usage: b.usage,
      latencies: { [b.first.node.id]: ctx.latencies.smoothed[b.first.node.id] ?? 0 },
      ...(b.target.platform ? { platform: b.target.platform } : {}),
    },
    signal: b.signal,
  });
  mem.attemptNode = answer.node.id;
  if (answer.node.id === b.first.node.id) return { answer, address: endpoint };
  const address = await nodeAddress(ctx, answer);
  await b.allowNodes(attemptEndpoints(answer, address, rest));
  return { answer, address };
}

/** The address the tunnel reaches the node at (the kill switch lets addresses out, not names). */
export async function nodeAddress(ctx: EngineContext, answer: ConnectResponse): Promise<string> {
  const addresses = await ctx.hosts.resolve(answer.node.endpoint_host);
  return addresses.find((a) => isIP(a) === 4) ?? addresses[0]!;
}
