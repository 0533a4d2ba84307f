// The main connection: one state at a time (engine/connection/machine.ts's transitions), each
// state a file of its own that puts its whole policy in force on entry. This file runs them:
// a user's connect, a failover's attempts, the tunnel's events, a disconnect, a start after a
// crash, and a setting that changes while connected.
import type {
  ClientConfig,
  ConfigKey,
  LocalConnectRequest,
  LocalConnectResponse,
  SplitRule,
} from '../../contracts/index.js';
import type { EngineContext } from '../engine-context.js';
import { FerryError } from '../errors.js';
import { dnsServers, type GuardFacts } from '../protection/connection-guard.js';
import type { ActiveTunnel } from '../tunnel/tunnel.js';
import {
  connecting,
  enterConnecting,
  type Connecting,
  type ConnectOptions,
  type Established,
} from './connecting.js';
import { enterConnected } from './connected.js';
import { enterDisconnected } from './disconnected.js';
import { disconnecting } from './disconnecting.js';
import { enterError, failureOf } from './error.js';
import { IntentStore } from './intent.js';
import type { ConnectReason, DisconnectReason } from './machine.js';
import { ConnectionMemory, type LiveTunnel } from './memory.js';
import { attemptFailed, tunnelLost, tunnelRestored } from './reconnecting.js';
import { Recovery } from './recovery.js';
import { connectTarget } from './target.js';
import { teardown, endControlSession } from './teardown.js';
import { TransportWatch } from './transport-watch.js';
import type { TransportChange } from '../transports/plan.js';

type TunnelEvent = Parameters<Parameters<ActiveTunnel['on']>[0]>[0];

export class MainConnection {
  readonly mem = new ConnectionMemory();
  readonly #intent: IntentStore;
  readonly #recovery: Recovery;
  readonly #watch: TransportWatch;

  constructor(
    private readonly ctx: EngineContext,
    private readonly onChange: () => void,
  ) {
    this.#intent = new IntentStore(ctx.deps.stateDir);
    this.#recovery = new Recovery({
      attempt: (unreachable) => this.recoverOnce(unreachable),
      ...(ctx.deps.recovery ? { timing: ctx.deps.recovery } : {}),
    });
    this.#watch = new TransportWatch(
      (live, change) => this.switchTransport(live, change),
      ctx.deps.transportWatch,
    );
    this.mem.machine.on(() => onChange());
  }

  get state() {
    return this.mem.machine.state;
  }

  /**
   * At start: what a crash left. The user who was connected is connected again, under the same
   * protections (an attempt that fails leaves the engine in error, blocking until the user
   * disconnects); otherwise the disconnected state's policy, and the resolver restored.
   */
  async start(config: ClientConfig, signedIn: boolean): Promise<void> {
    const intent = signedIn ? await this.#intent.read() : null;
    if (intent && config.service !== null) {
      void this.connect(intent.overrides as LocalConnectRequest, undefined, 'auto-connect').catch(
        () => undefined,
      );
      return;
    }
    await this.#intent.clear().catch(() => undefined);
    await enterDisconnected(this.ctx, config);
  }

  connect(
    request: LocalConnectRequest,
    signal: AbortSignal | undefined,
    reason: ConnectReason,
  ): Promise<Pick<LocalConnectResponse, 'exit_ip' | 'routing'>> {
    // The user (or a start after a crash) decides now: a recovery under way ends.
    this.#recovery.stop();
    this.#watch.reset();
    return this.ctx.ops.run(async (opSignal) => {
      await this.#intent.save({ overrides: { ...request } as Record<string, string> });
      return this.connectNow(request, opSignal, { reason });
    }, signal);
  }

  disconnect(reason: DisconnectReason): Promise<void> {
    this.#recovery.stop();
    this.#watch.stop();
    return this.ctx.ops.run(() => this.disconnectNow(reason));
  }

  /** A disconnect from inside an operation under way (sign-out). */
  disconnectNow(reason: DisconnectReason): Promise<void> {
    this.#watch.stop();
    return disconnecting(this.ctx, this.mem, reason, () => this.#intent.clear());
  }

  /** The engine stops: no recovery, no watching. */
  stop(): void {
    this.#recovery.stop();
    this.#watch.stop();
  }

  /**
   * After sleep, a link down and up, a new address or default route: a recovery under way tries
   * again at once, and the links the protections follow (the LAN, DHCP's) are read again.
   */
  onNetworkChange(): void {
    this.#recovery.hurry();
    const facts = this.ctx.guard.facts;
    if (facts.stage !== 'off' || facts.lockdown)
      void this.ctx.guard.update({}).catch(() => undefined);
  }

  private async connectNow(
    request: LocalConnectRequest,
    signal: AbortSignal,
    opts: ConnectOptions,
  ): Promise<Pick<LocalConnectResponse, 'exit_ip' | 'routing'>> {
    const { ctx, mem } = this;
    const config = await ctx.config.load();
    const control = ctx.control.client(config);
    await ctx.requireSession();
    const { target, usage } = connectTarget(request, config, await ctx.rules.list(), ctx.platforms);
    mem.overrides = {
      ...(request.protocol ? { protocol: request.protocol } : {}),
      ...(request.encryption ? { encryption: request.encryption } : {}),
      ...(request.region ? { region: request.region } : {}),
      ...(request.mode || request.usage || request.platform ? { mode: target.mode } : {}),
      ...(target.platform ? { platform: target.platform } : {}),
      ...(request.via ? { via: request.via } : {}),
    };
    mem.attemptNode = null;
    let c: Connecting = { config, control, target, usage, signal, opts };
    let est: Established | null = null;
    try {
      ({ est, c } = await this.connectingHops(c));
      const result = await enterConnected(ctx, mem, c, est, (live, e) =>
        this.onTunnelEvent(live, e),
      );
      this.#recovery.forgetUnreachable();
      if (mem.live) this.#watch.follow(config, mem.live);
      return result;
    } catch (e) {
      this.#watch.stop();
      const tunnel = est?.up.tunnel ?? null;
      if (mem.live && mem.live.tunnel !== tunnel) {
        // The previous tunnel is still up when the control plane refused: it goes too, so the
        // state says what is true (error, no tunnel).
        await teardown(ctx, mem, mem.live);
      }
      if (tunnel) await tunnel.close().catch(() => undefined);
      mem.live = null;
      mem.exitAfter = null;
      await endControlSession(ctx, control);
      // Cancelled by a newer request or the caller: say that, not how the cancelled step ended.
      const error = signal.aborted && signal.reason instanceof FerryError ? signal.reason : e;
      // Still reconnecting: the recovery tries again, the kill switch holds meanwhile.
      if (opts.recovering) await attemptFailed(ctx);
      else {
        // Refused before the node was chosen: the attempt still ends in error (which blocks,
        // with the kill switch), through the state it would have entered.
        enterConnecting(mem, target, opts.reason);
        await enterError(ctx, mem, config, error);
      }
      throw error;
    }
  }

  /**
   * multihop auto: where a connect gets no answer on any transport and the service offers entry
   * regions, the same connect through an entry relay (a network that lets only the entry
   * region's relays through); the way that got through is remembered per network and tried
   * first there next time. A connect that names its hops (--via, multihop always or never) is
   * made as asked.
   */
  private async connectingHops(c: Connecting): Promise<{ est: Established; c: Connecting }> {
    const { ctx, mem } = this;
    if (c.config.multihop !== 'auto' || c.target.entryRegion)
      return { est: await connecting(ctx, mem, c), c };
    const network = await ctx.networks.currentNetwork().catch(() => null);
    const viaEntry: Connecting = {
      ...c,
      target: { ...c.target, entryRegion: c.config.entry_region },
    };
    const order =
      (await ctx.networks.recallHop(network)) === 'entry' ? [viaEntry, c] : [c, viaEntry];
    let first: unknown;
    for (const attempt of order) {
      try {
        const est = await connecting(ctx, mem, attempt);
        const hop = attempt.target.entryRegion ? 'entry' : 'direct';
        // A reconnect (failover, a transport's change) keeps entering where this one did.
        if (hop === 'entry') mem.overrides.via = c.config.entry_region;
        await ctx.networks.rememberHop(network, hop).catch(() => undefined);
        return { est, c: attempt };
      } catch (e) {
        // The first way's failure is what the user hears when the other way fails too (a
        // service with no entry region, say): nothing answered.
        first ??= e;
        const unanswered =
          e instanceof FerryError && (e.code === 'node-unreachable' || e.code === 'tunnel-timeout');
        if (!unanswered || c.signal.aborted) throw first;
      }
    }
    throw first;
  }

  /**
   * The transport watch's switch (a throttled UDP left, UDP tried again): a reconnect to the same
   * region in turn with the user's commands, unless the tunnel it was about is gone already. One
   * that fails leaves the engine reconnecting, and the recovery takes over.
   */
  private switchTransport(live: LiveTunnel, change: TransportChange): Promise<void> {
    return this.ctx.ops
      .run(async (signal) => {
        if (this.mem.live !== live || this.mem.machine.state !== 'connected') return;
        try {
          await this.connectNow({ ...this.mem.overrides }, signal, {
            reason: 'retry',
            recovering: true,
            change,
          });
        } catch {
          if (signal.aborted) return;
          if (this.mem.machine.state === 'connected')
            this.mem.machine.dispatch({ type: 'tunnel-lost', reason: 'transport-changed' });
          void this.#recovery.start();
        }
      })
      .catch(() => undefined);
  }

  /** One failover attempt of the recovery, in turn with the user's commands. */
  private async recoverOnce(unreachable: string[]): Promise<'recovered' | 'stop'> {
    return this.ctx.ops.run(async (signal) => {
      if (this.mem.machine.state !== 'reconnecting') return 'stop';
      try {
        await this.connectNow({ ...this.mem.overrides }, signal, {
          reason: 'retry',
          unreachable,
          recovering: true,
        });
        return 'recovered';
      } catch (e) {
        if (signal.aborted) return 'stop';
        const failedNode = this.mem.attemptNode;
        if (failedNode) this.#recovery.markUnreachable(failedNode);
        this.mem.notices = [
          { code: 'reconnecting', message: `still reconnecting: ${failureOf(e).message}` },
        ];
        this.onChange();
        throw e;
      }
    });
  }

  private onTunnelEvent(live: LiveTunnel, e: TunnelEvent): void {
    const { ctx, mem } = this;
    if (mem.live !== live) return;
    switch (e.type) {
      case 'latency':
        mem.machine.dispatch({ type: 'latency', latencyMs: e.ms });
        live.reporter.measured(e.ms, live.answer.session_id);
        break;
      case 'lost':
        if (mem.machine.state === 'connected') tunnelLost(ctx, mem, live, this.#recovery);
        break;
      case 'restored':
        if (mem.machine.state === 'reconnecting') tunnelRestored(ctx, mem, live, this.#recovery);
        break;
      case 'rekey':
        break;
    }
  }

  /**
   * The split rules changed: the engine's resolver asks by the new ones, and their sets start
   * again empty while connected (a removed rule's addresses go with it).
   */
  async splitRulesChanged(rules: readonly SplitRule[]): Promise<void> {
    const { ctx } = this;
    ctx.dns.setRules(rules);
    ctx.ruleAddresses.clear();
    await ctx.guard.rulesChanged();
  }

  /**
   * The protections follow a changed setting at once (kill switch, lockdown, LAN, split, DNS),
   * without a new session. Whether anything in force changed.
   */
  async applyInPlace(config: ClientConfig, keys: readonly ConfigKey[]): Promise<boolean> {
    const { ctx, mem } = this;
    const stage = ctx.guard.facts.stage;
    const live = mem.live;
    const change: Partial<GuardFacts> = {
      killSwitch: config.kill_switch,
      lockdown: config.lockdown,
      allowLan: config.allow_lan,
    };
    if (stage !== 'off' && keys.some((k) => k === 'split' || k === 'home_country' || k === 'dns'))
      change.split = await ctx.split.setsFor(config, mem.exitBefore);
    if (live && keys.includes('dns')) change.dns = dnsServers(config, live.answer);
    const resolverKeys = keys.some((k) => k === 'split' || k === 'home_country' || k === 'dns');
    // Where the engine reaches its service (API access: relays, a proxy), for the kill switch.
    if (keys.some((k) => ['api_access', 'service_key', 'lockdown', 'kill_switch'].includes(k)))
      change.controlPlane = await ctx
        .controlEndpoints(config)
        .catch(() => ctx.guard.facts.controlPlane);
    await ctx.guard.update(change);
    // The engine's resolver asks where the new settings say (what it cached goes with them).
    if (live && resolverKeys)
      await ctx.dns.use(
        { tunnel: ctx.guard.facts.dns, home: ctx.guard.facts.homeDns, isHome: ctx.split.isHome() },
        live.tunnel.interfaceName,
      );
    return stage !== 'off' || config.lockdown || keys.includes('lockdown');
  }
}
