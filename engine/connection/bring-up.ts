// The tunnel for a connect answer, over the transports obfuscation allows, in order: UDP first
// and Ferry over TCP when UDP got no answer (auto). WireGuard falls back to Ferry over TCP
// through a second connect answer, for Ferry (the one extra call a fallback makes); the user's
// protocol setting stays as it is.
import { isIP } from 'node:net';

import type {
  ClientConfig,
  ConnectResponse,
  ControlClient,
  Notice,
  Usage,
} from '../../contracts/index.js';
import type { EngineContext } from '../engine-context.js';
import { FerryError } from '../errors.js';
import type { Endpoint } from '../protection/firewall-policy.js';
import { tunnelInterfaceName } from '../tunnel/names.js';
import type { ActiveTunnel } from '../tunnel/tunnel.js';
import type { ConnectTarget } from './machine.js';
import type { ConnectionMemory } from './memory.js';
import {
  obfuscationNotice,
  transportAttempts,
  type TransportAttempt,
} from './transport-attempts.js';

/**
 * Keepalives of the main tunnel every second: Ferry's carry its round trip, so a silent node is
 * noticed within about two of them, and failover starts at once.
 */
const LIVENESS_KEEPALIVE_SECONDS = 1;

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
  transport: 'udp' | 'tcp';
  notices: Notice[];
}

/** The transports this answer may be tried over, in order. */
export function attemptsFor(
  ctx: EngineContext,
  answer: ConnectResponse,
  config: ClientConfig,
  recovering: boolean,
): TransportAttempt[] {
  const hasFerry = answer.node.ferry_port !== null && answer.node.ferry_public_key !== null;
  return transportAttempts(
    answer.protocol,
    hasFerry,
    config.obfuscation,
    ctx.deps.udpAttemptMs,
  ).map((a) =>
    // A failover does not wait long for a node that may be down too: the next one is tried.
    recovering && a.timeoutMs === undefined ? { ...a, timeoutMs: RECOVERY_ATTEMPT_MS } : a,
  );
}

/** The node endpoints the attempts use (the kill switch lets addresses out, not names). */
export function attemptEndpoints(
  answer: ConnectResponse,
  address: string,
  attempts: readonly TransportAttempt[],
): Endpoint[] {
  return attempts.map((a) => ({
    address,
    port: a.protocol === 'ferry' ? answer.node.ferry_port! : answer.node.wireguard_port,
    protocol: a.transport,
  }));
}

export async function bringUp(
  ctx: EngineContext,
  mem: ConnectionMemory,
  b: BringUp,
  attempts: readonly TransportAttempt[],
  endpoint: string,
): Promise<TunnelUp> {
  let lastError: unknown;
  for (const [i, attempt] of attempts.entries()) {
    let answer = b.first;
    let address = endpoint;
    if (attempt.protocol !== b.first.protocol) {
      // A session for Ferry: the control plane keeps the device on its node when it can.
      answer = await b.control.connect({
        body: {
          protocol: attempt.protocol,
          encryption: b.target.encryption,
          region: b.first.node.region,
          usage: b.usage,
          latencies: { [b.first.node.id]: ctx.latencies.smoothed[b.first.node.id] ?? 0 },
          ...(b.target.platform ? { platform: b.target.platform } : {}),
        },
        signal: b.signal,
      });
      mem.attemptNode = answer.node.id;
      if (answer.node.id !== b.first.node.id) {
        address = await nodeAddress(ctx, answer);
        await b.allowNodes([
          { address, port: answer.node.ferry_port ?? 0, protocol: attempt.transport },
        ]);
      }
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
          routes: { kind: 'all' },
          interfaceName: ctx.deps.interfaceName?.() ?? tunnelInterfaceName('main'),
          keepaliveSeconds: LIVENESS_KEEPALIVE_SECONDS,
          ...(attempt.timeoutMs === undefined ? {} : { timeoutMs: attempt.timeoutMs }),
        },
        b.signal,
      );
      // Said when the tunnel is not what the user chose: WireGuard became Ferry, or UDP TCP.
      const notices =
        attempt.protocol !== b.target.protocol ||
        (attempt.transport === 'tcp' && b.config.obfuscation === 'auto')
          ? [obfuscationNotice(b.target.protocol, b.config.obfuscation)]
          : [];
      return { tunnel, answer, transport: attempt.transport, notices };
    } catch (e) {
      lastError = e;
      // Only a node that never answered over UDP is worth trying over TCP.
      const silent = e instanceof FerryError && e.code === 'node-unreachable';
      if (!silent || i === attempts.length - 1 || b.signal.aborted) throw e;
    }
  }
  throw lastError;
}

/** The address the tunnel reaches the node at (the kill switch lets addresses out, not names). */
export async function nodeAddress(ctx: EngineContext, answer: ConnectResponse): Promise<string> {
  const addresses = await ctx.hosts.resolve(answer.node.endpoint_host);
  return addresses.find((a) => isIP(a) === 4) ?? addresses[0]!;
}
