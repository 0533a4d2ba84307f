// DestinationSet tunnels (`netcli tunnel start --service S --tag T`): an extra tunnel of this device,
// registered with the control plane under its own keys and addresses, on its own interface and
// session, that routes only its service's destinations. Independent of the main tunnel (its
// connects and disconnects leave them be); all of them stop at sign-out and at shutdown.
import { isIP } from 'node:net';
import {
  ApiError,
  latencyText,
  type ClientConfig,
  type ConnectResponse,
  type ControlClient,
  type Device,
  type RegionRule,
  type ServiceTunnel,
  type StartTunnelRequest,
  type StopTunnelResponse,
} from '../contracts/index.js';
import { FerryError } from './errors.js';
import { resolveRegionChoice } from './catalog/region-rules.js';
import { serviceDestinations, type ResolveIpv4, type DestinationSetStore } from './services.js';
import type { TunnelKeyStore, TunnelKeys } from './tunnel-keys.js';
import { tunnelInterfaceName } from './tunnel/names.js';
import type { ActiveTunnel, TunnelEvent, TunnelManager } from './tunnel/tunnel.js';
import type { Endpoint } from './protection/firewall-policy.js';
import { SerialQueue } from './serial-queue.js';

export interface ServiceTunnelDeps {
  /** The control plane's client (throws service-not-configured without one). */
  control: () => Promise<ControlClient>;
  /** This signed-in device (throws not-signed-in). */
  device: () => Promise<Device>;
  config: () => Promise<ClientConfig>;
  rules: () => Promise<RegionRule[]>;
  services: DestinationSetStore;
  keys: TunnelKeyStore;
  tunnels: TunnelManager;
  resolve: ResolveIpv4;
  /** Whether a node's endpoint is this machine. */
  isThisMachine: (host: string) => Promise<boolean>;
  /** A fresh interface name for a tag (default: tunnelInterfaceName(tag)). */
  interfaceName?: (tag: string) => string;
  /** Drops the control plane's pooled connections when routes change. */
  resetConnections?: () => void;
  /**
   * Lets a tunnel's node endpoints out through the kill switch before it comes up (null: it is
   * gone). The endpoint's host is an address by then.
   */
  allowEndpoints?: (tag: string, endpoints: Endpoint[] | null) => Promise<void>;
}

interface Running {
  tag: string;
  service: string;
  answer: ConnectResponse;
  tunnel: ActiveTunnel;
  transport: 'udp' | 'tcp';
  destinations: number;
  lost: boolean;
  stopEvents: () => void;
}

/** How long a stop at shutdown waits for the control plane. */
const UNREGISTER_TIMEOUT_MS = 3_000;

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new FerryError('cancelled', 'starting the tunnel was cancelled');
}

export class ServiceTunnels {
  readonly #running = new Map<string, Running>();
  readonly #serial = new SerialQueue();

  constructor(private readonly d: ServiceTunnelDeps) {}

  /**
   * Starts a tunnel tagged `tag` for a service: resolves once traffic crosses it. Fails closed:
   * on any failure nothing of it stays (interface, routes, the control plane's registration).
   */
  start(request: StartTunnelRequest, signal?: AbortSignal): Promise<ServiceTunnel> {
    return this.#serial.run(() => this.startNow(request, signal));
  }

  list(): ServiceTunnel[] {
    return [...this.#running.values()]
      .sort((a, b) => a.tag.localeCompare(b.tag))
      .map((r) => this.view(r));
  }

  /** Takes the tunnel down here, then removes it from the control plane (its peers go). */
  stop(tag: string): Promise<StopTunnelResponse> {
    return this.#serial.run(async () => {
      const running = this.#running.get(tag);
      if (!running) throw this.notRunning(tag);
      await this.close(running);
      const unregistered = await this.unregister(tag);
      return { tag, service: running.service, unregistered };
    });
  }

  /**
   * Every tunnel down. `unregister`: each is removed from the control plane too (shutdown);
   * otherwise the device's revocation takes them there (sign-out) and their keys go here.
   * Tries all; rejects with the first failure.
   */
  stopAll(opts: { unregister: boolean }): Promise<void> {
    return this.#serial.run(async () => {
      let first: unknown;
      for (const running of [...this.#running.values()]) {
        try {
          await this.close(running);
          if (opts.unregister) await this.unregister(running.tag, UNREGISTER_TIMEOUT_MS);
        } catch (e) {
          first ??= e;
        }
      }
      if (!opts.unregister) await this.d.keys.forgetAll();
      if (first !== undefined) throw first;
    });
  }

  private async startNow(
    request: StartTunnelRequest,
    signal: AbortSignal | undefined,
  ): Promise<ServiceTunnel> {
    const { tag } = request;
    const already = this.#running.get(tag);
    if (already) {
      throw new FerryError(
        'tunnel-exists',
        `a tunnel tagged ${tag} is running (service ${already.service}): stop it first ` +
          `(netcli tunnel stop --tag ${tag}) or choose another tag`,
      );
    }
    const control = await this.d.control();
    const device = await this.d.device();
    const service = await this.d.services.get(request.service);
    const carrier = [...this.#running.values()].find((r) => r.service === service.name);
    if (carrier) {
      throw new FerryError(
        'tunnel-exists',
        `service ${service.name} is carried by tunnel ${carrier.tag} already`,
      );
    }
    const config = await this.d.config();
    const region = resolveRegionChoice(request.region ?? config.region, await this.d.rules());
    const destinations = await serviceDestinations(service, this.d.resolve);
    throwIfAborted(signal);

    const keys = await this.d.keys.keysFor(tag);
    let registered = false;
    let tunnel: ActiveTunnel | null = null;
    try {
      await this.register(control, device.id, tag, keys, signal);
      registered = true;
      const answer = await control.connect({
        body: {
          protocol: request.protocol ?? config.protocol,
          encryption: config.encryption,
          region,
          usage: 'remote-work',
          tunnel: tag,
        },
        signal,
      });
      throwIfAborted(signal);
      if (await this.d.isThisMachine(answer.node.endpoint_host)) {
        throw new FerryError(
          'node-is-local',
          `node ${answer.node.id} runs on this machine: a tunnel to it would loop; start the ` +
            'tunnel from another machine',
        );
      }
      const transport: 'udp' | 'tcp' =
        answer.protocol === 'ferry' && config.obfuscation === 'on' ? 'tcp' : 'udp';
      const port =
        answer.protocol === 'ferry' ? answer.node.ferry_port : answer.node.wireguard_port;
      if (isIP(answer.node.endpoint_host) !== 0 && port !== null)
        await this.d.allowEndpoints?.(tag, [
          { address: answer.node.endpoint_host, port, protocol: transport },
        ]);
      tunnel = await this.d.tunnels.up(
        {
          answer,
          privateKey: keys.privateKey(answer.protocol),
          transport,
          routes: { kind: 'only', cidrs: destinations },
          interfaceName: (this.d.interfaceName ?? tunnelInterfaceName)(tag),
        },
        signal,
      );
      this.d.resetConnections?.();
      const running: Running = {
        tag,
        service: service.name,
        answer,
        tunnel,
        transport,
        destinations: destinations.length,
        lost: false,
        stopEvents: () => undefined,
      };
      running.stopEvents = tunnel.on((e) => this.onTunnelEvent(running, e));
      this.#running.set(tag, running);
      return this.view(running);
    } catch (e) {
      if (tunnel) await tunnel.close().catch(() => undefined);
      await this.d.allowEndpoints?.(tag, null).catch(() => undefined);
      // The registration goes too: nothing of a tunnel that did not start stays anywhere.
      if (registered) await this.unregister(tag, UNREGISTER_TIMEOUT_MS);
      throw e;
    }
  }

  /**
   * Registers the tunnel's keys under its tag. A registration of the tag that is there already
   * is this host's own when its keys are (a stop the control plane did not hear, a crash); one
   * with other keys is a leftover of keys this host no longer has, and is replaced.
   */
  private async register(
    control: ControlClient,
    deviceId: string,
    tag: string,
    keys: TunnelKeys,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const create = () =>
      control.createTunnel({
        params: { id: deviceId },
        body: {
          tag,
          wireguard_public_key: keys.publicKeys.wireguard,
          ferry_public_key: keys.publicKeys.ferry,
        },
        signal,
      });
    try {
      await create();
      return;
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'tunnel-exists') throw e;
    }
    const { tunnels } = await control.listTunnels({ params: { id: deviceId }, signal });
    const held = tunnels.find((t) => t.tag === tag);
    if (
      held?.wireguard_public_key === keys.publicKeys.wireguard &&
      held.ferry_public_key === keys.publicKeys.ferry
    )
      return;
    await control.deleteTunnel({ params: { id: deviceId, tag }, signal }).catch((e: unknown) => {
      if (!(e instanceof ApiError && e.code === 'not-found')) throw e;
    });
    await create();
  }

  /**
   * Removes the tag's tunnel from the control plane and, once it is gone there, its keys here.
   * False when the control plane could not be told (the keys stay: a later start takes the
   * registration over).
   */
  private async unregister(tag: string, timeoutMs?: number): Promise<boolean> {
    try {
      const control = await this.d.control();
      const device = await this.d.device();
      await control
        .deleteTunnel({
          params: { id: device.id, tag },
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
        })
        .catch((e: unknown) => {
          if (!(e instanceof ApiError && e.code === 'not-found')) throw e;
        });
    } catch {
      return false;
    }
    await this.d.keys.forget(tag);
    return true;
  }

  /** Takes a running tunnel down (interface, routes); kept listed when that failed. */
  private async close(running: Running): Promise<void> {
    running.stopEvents();
    try {
      await running.tunnel.close();
    } catch (e) {
      running.stopEvents = running.tunnel.on((ev) => this.onTunnelEvent(running, ev));
      throw e;
    } finally {
      this.d.resetConnections?.();
    }
    this.#running.delete(running.tag);
    await this.d.allowEndpoints?.(running.tag, null);
  }

  private onTunnelEvent(running: Running, e: TunnelEvent): void {
    if (e.type === 'lost') running.lost = true;
    else if (e.type === 'restored' || e.type === 'latency') running.lost = false;
  }

  private notRunning(tag: string): FerryError {
    const tags = [...this.#running.keys()].sort();
    return new FerryError(
      'tunnel-not-found',
      `no tunnel tagged ${tag} is running` +
        (tags.length ? `; the running ones are ${tags.join(', ')}` : ''),
    );
  }

  private view(r: Running): ServiceTunnel {
    const { answer } = r;
    const port = answer.protocol === 'ferry' ? answer.node.ferry_port : answer.node.wireguard_port;
    return {
      tag: r.tag,
      service: r.service,
      status: r.lost ? 'lost' : 'connected',
      region: answer.region,
      node: {
        id: answer.node.id,
        region: answer.node.region,
        endpoint: `${answer.node.endpoint_host}:${port}`,
      },
      protocol: answer.protocol,
      cipher: answer.cipher,
      transport: r.transport,
      latency: r.lost ? null : latencyText(r.tunnel.latencyMs()),
      interface: r.tunnel.interfaceName,
      tunnel_ipv4: answer.tunnel.ipv4,
      destinations: r.destinations,
    };
  }
}
