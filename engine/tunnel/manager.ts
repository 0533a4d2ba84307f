// The real TunnelManager: brings up a WireGuard (wireguard-go) or Ferry (native data plane) tunnel
// from a connect answer, routes it, resolves only once traffic has crossed it, reports its health,
// and takes down exactly what it made: on close, on a failed up(), and after a crash.
import type { DataPlane, StreamOutcome } from '../../native/tunnel-types.js';
import { FerryError } from '../errors.js';
import { runCommand, type CommandRunner } from '../../platform/os/command.js';
import type { OsEffects } from '../os/effects.js';
import { removeLeftovers } from './cleanup.js';
import { burstThrough, gatewayOf } from './probe.js';
import { startFerry } from './ferry.js';
import { FERRY_FWMARK, isTunnelInterfaceName } from './names.js';
import {
  AppliedRouting,
  ensureFullTunnelRules,
  removeFullTunnelRules,
  routingPlan,
} from './routing.js';
import type { ProtocolSession } from './session.js';
import type { ActiveTunnel, TunnelEvent, TunnelManager, TunnelPlan } from './tunnel.js';
import { startWireguard, type WireguardTiming } from './wireguard.js';
import { linuxWireguardSystem, type WireguardSystem } from '../../platform/os/wireguard-go.js';

export interface TunnelManagerDeps {
  /** Links and routes (the Linux ones in the daemon, the fakes in unit tests). */
  os: Pick<OsEffects, 'links' | 'routes'>;
  /** The Ferry data plane (nativeDataPlane in the daemon). */
  dataPlane: Pick<DataPlane, 'startClient'>;
  /** wireguard-go and its UAPI sockets (default: linuxWireguardSystem()). */
  wireguard?: WireguardSystem;
  /** Runs ping for WireGuard's probes (default: runCommand). */
  run?: CommandRunner;
  /** Resolves a node's host name for WireGuard (default: the system resolver, IPv4). */
  resolveHost?: (host: string) => Promise<string>;
  /** Wall-clock ms (default Date.now). */
  now?: () => number;
  timing?: Partial<TunnelTiming>;
}

export interface TunnelTiming extends WireguardTiming {
  /** How long up() may take, from start to the first round trip. */
  upTimeoutMs: number;
}

export const DEFAULT_UP_TIMEOUT_MS = 10_000;

const TIMEOUT = Symbol('tunnel up timeout');

/** How a stream transport's last connection attempt ended, in words (the timeout's message). */
const OUTCOME_WORDS: Readonly<Record<StreamOutcome, string>> = {
  refused: 'the connection was refused',
  'connect-timeout': 'the connection got no answer',
  reset: 'the connection was reset after its first packet',
  closed: 'the connection was closed after its first packet',
  silent: 'nothing came back after its first packet',
  answered: 'the node answered, then nothing more',
};

/**
 * The error up() rejects with when its time ran out, by how far the tunnel got; over TCP or TLS
 * it says what the last connection ran into (`extra.stream_outcome`: the autopilot's evidence).
 */
function timeoutError(session: ProtocolSession | null, ms: number): FerryError {
  const outcome = session?.streamOutcome?.() ?? null;
  const extra = outcome ? { extra: { stream_outcome: outcome } } : {};
  const seen = outcome ? ` (${OUTCOME_WORDS[outcome]})` : '';
  if (session?.handshakeSeen())
    return new FerryError(
      'tunnel-timeout',
      `the node answered, but no traffic crossed the tunnel within ${ms / 1000} s${seen}`,
      extra,
    );
  return new FerryError(
    'node-unreachable',
    `the node did not answer within ${ms / 1000} s${seen || " (unreachable from here, this device unknown to it, or this machine's clock is off)"}`,
    extra,
  );
}

export function createTunnelManager(deps: TunnelManagerDeps): TunnelManager {
  const { links, routes } = deps.os;
  const wireguard = deps.wireguard ?? linuxWireguardSystem();
  const run = deps.run ?? runCommand;
  const upTimeoutMs = deps.timing?.upTimeoutMs ?? DEFAULT_UP_TIMEOUT_MS;
  /** Tunnels being brought up or up, by interface name; and which of them are full tunnels. */
  const held = new Set<string>();
  const fullTunnels = new Set<string>();
  /** Rule changes are serialised: two full tunnels must not both add (or one remove) them. */
  let rules: Promise<unknown> = Promise.resolve();
  const serialRules = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = rules.then(fn, fn);
    rules = next.catch(() => {});
    return next;
  };

  async function takeDown(
    name: string,
    session: ProtocolSession | null,
    routing: AppliedRouting | null,
  ): Promise<void> {
    let first: unknown;
    const attempt = async (fn: () => Promise<void>) => {
      try {
        await fn();
      } catch (e) {
        first ??= e;
      }
    };
    if (routing) await attempt(() => routing.undo());
    if (fullTunnels.delete(name) && fullTunnels.size === 0)
      await attempt(() =>
        serialRules(async () => {
          // A full tunnel that came up meanwhile keeps them.
          if (fullTunnels.size === 0) await removeFullTunnelRules(routes);
        }),
      );
    if (session) await attempt(() => session.close());
    // wireguard-go and the data plane remove their links; one left by a killed process goes here.
    await attempt(() => links.delete(name));
    if (first !== undefined) throw first;
    held.delete(name);
  }

  async function up(plan: TunnelPlan, signal?: AbortSignal): Promise<ActiveTunnel> {
    const name = plan.interfaceName;
    if (!isTunnelInterfaceName(name))
      throw new TypeError('tunnel interface names come from tunnelInterfaceName()');
    if (plan.timeoutMs !== undefined && !(plan.timeoutMs > 0 && plan.timeoutMs <= 120_000))
      throw new TypeError('a tunnel timeout is 1..120000 ms');
    if (
      plan.answer.protocol === 'wireguard' &&
      plan.transport !== undefined &&
      plan.transport !== 'udp'
    )
      throw new TypeError('WireGuard has UDP only (Ferry over TCP or TLS stands in for it)');
    if (plan.raceUdp && (plan.transport === undefined || plan.transport === 'udp'))
      throw new TypeError('a UDP race runs beside Ferry over TCP or TLS');
    // Refused before anything is made, so that nothing of another tunnel is taken down.
    const steps = routingPlan(plan, plan.answer.protocol === 'wireguard');
    if (held.has(name) || (await links.get(name)) !== null)
      throw new FerryError('tunnel-failed', `an interface named ${name} exists already`);
    held.add(name);

    const limitMs = plan.timeoutMs ?? upTimeoutMs;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(TIMEOUT), limitMs);
    const cancelled = new FerryError('cancelled', 'connecting was cancelled');
    const onCancel = () => timeout.abort(cancelled);
    if (signal?.aborted) onCancel();
    signal?.addEventListener('abort', onCancel, { once: true });

    let session: ProtocolSession | null = null;
    let routing: AppliedRouting | null = null;
    try {
      session =
        plan.answer.protocol === 'ferry'
          ? startFerry(deps.dataPlane, plan, FERRY_FWMARK)
          : await startWireguard(
              {
                system: wireguard,
                run,
                ...(deps.resolveHost ? { resolveHost: deps.resolveHost } : {}),
                ...(deps.now ? { now: deps.now } : {}),
                ...(deps.timing ? { timing: deps.timing } : {}),
              },
              plan,
              FERRY_FWMARK,
              timeout.signal,
            );
      if (timeout.signal.aborted) throw timeout.signal.reason;
      routing = await AppliedRouting.apply(deps.os, name, steps.steps);
      if (steps.fullTunnel) {
        fullTunnels.add(name);
        await serialRules(() => ensureFullTunnelRules(routes));
      }
      // Routed first, then proven: the round trip takes the path the user's traffic will take
      // (a full tunnel whose own packets looped into itself would fail here).
      const latency = await session.waitForTraffic(timeout.signal);
      return activeTunnel(plan, session, routing, latency);
    } catch (e) {
      const failure =
        e === TIMEOUT
          ? timeoutError(session, limitMs)
          : e === cancelled || e instanceof FerryError || e instanceof TypeError
            ? e
            : new FerryError('tunnel-failed', 'the tunnel could not be brought up', { cause: e });
      await takeDown(name, session, routing).catch(() => {
        // What could not be removed now is a leftover for cleanupLeftovers().
        held.delete(name);
      });
      throw failure;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCancel);
    }
  }

  function activeTunnel(
    plan: TunnelPlan,
    session: ProtocolSession,
    routing: AppliedRouting,
    firstLatency: number,
  ): ActiveTunnel {
    const name = plan.interfaceName;
    const listeners = new Set<(e: TunnelEvent) => void>();
    let latency = firstLatency;
    let closing: Promise<void> | null = null;
    session.monitor((e) => {
      if (e.type === 'latency') latency = e.ms;
      for (const l of [...listeners]) l(e);
    });
    return {
      interfaceName: name,
      protocol: plan.answer.protocol,
      latencyMs: () => latency,
      transport: () => session.racedTransport?.() ?? plan.transport ?? 'udp',
      health: () => session.health(),
      burst: (count, size) =>
        burstThrough(run, name, gatewayOf(plan.answer), count, size).catch(() => null),
      on(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      close() {
        // One close at a time; after a failed one, the next retries what is left.
        closing ??= takeDown(name, session, routing).finally(() => {
          listeners.clear();
          closing = null;
        });
        return closing;
      },
    };
  }

  return {
    up,
    cleanupLeftovers: () =>
      removeLeftovers(
        { links, routes, wireguard },
        { names: held, fullTunnel: fullTunnels.size > 0 },
      ),
  };
}
