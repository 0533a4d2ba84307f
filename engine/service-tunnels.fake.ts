// The in-memory services and service tunnels of the fake engine (engine.fake.ts), with the real
// rules: shipped names and taken names refused, a service carried by one tunnel at a time, one
// tunnel per tag, domains that do not resolve refused; no network, no OS.
import {
  BUILTIN_DESTINATION_SETS,
  type AddDestinationSetRequest,
  type Protocol,
  type DestinationSet,
  type ServiceTunnel,
  type StartTunnelRequest,
  type StopTunnelResponse,
} from '../contracts/index.js';
import { FerryError } from './errors.js';

export interface FakeServiceTunnelDeps {
  /** Throws as the engine does without a service or a sign-in. */
  requireSession: () => void;
  /** A region choice (or the configured one, when none) to a region and its node. */
  place: (choice: string | undefined) => { region: string; node: string };
  protocol: () => Protocol;
}

export class FakeServiceTunnels {
  readonly own: DestinationSet[] = [];
  readonly running = new Map<string, ServiceTunnel>();
  /** Domains the fake resolver does not know (a start with one is refused). */
  readonly unresolvable = new Set<string>();
  /** Tags the control plane was told to remove (stop and shutdown). */
  readonly unregistered: string[] = [];
  private nextInterface = 1;

  constructor(private readonly d: FakeServiceTunnelDeps) {}

  list(): DestinationSet[] {
    return [
      ...BUILTIN_DESTINATION_SETS.map((s) => ({ ...s })),
      ...[...this.own].sort((a, b) => a.name.localeCompare(b.name)).map((s) => ({ ...s })),
    ];
  }

  add(request: AddDestinationSetRequest): DestinationSet {
    if (this.list().some((s) => s.name === request.name))
      throw new FerryError('service-exists', `a service named ${request.name} exists`);
    const service: DestinationSet = {
      name: request.name,
      builtin: false,
      description: null,
      cidrs: [...new Set(request.cidrs)],
      domains: [...new Set(request.domains)],
    };
    this.own.push(service);
    return { ...service };
  }

  remove(name: string): void {
    const typed = name.toLowerCase();
    if (BUILTIN_DESTINATION_SETS.some((s) => s.name === typed)) {
      throw new FerryError('config-invalid', `${typed} is a service Ferry ships: it stays`, {
        errors: [{ field: 'name', message: 'a service of your own (netcli service list)' }],
      });
    }
    const i = this.own.findIndex((s) => s.name === typed);
    if (i < 0) throw new FerryError('service-not-found', `you have no service named ${typed}`);
    this.own.splice(i, 1);
  }

  start(request: StartTunnelRequest): ServiceTunnel {
    this.d.requireSession();
    if (this.running.has(request.tag))
      throw new FerryError('tunnel-exists', `a tunnel tagged ${request.tag} is running`);
    const service = this.list().find((s) => s.name === request.service);
    if (!service)
      throw new FerryError('service-not-found', `there is no service ${request.service}`);
    if ([...this.running.values()].some((t) => t.service === service.name))
      throw new FerryError('tunnel-exists', `service ${service.name} is carried already`);
    const unresolved = service.domains.filter((d) => this.unresolvable.has(d)).length;
    if (unresolved > 0)
      throw new FerryError(
        'destinations-unresolved',
        `${unresolved} of the ${service.domains.length} domains of service ${service.name} did not resolve`,
      );
    const { region, node } = this.d.place(request.region);
    const protocol = request.protocol ?? this.d.protocol();
    const tunnel: ServiceTunnel = {
      tag: request.tag,
      service: service.name,
      status: 'connected',
      region,
      node: {
        id: node,
        region,
        endpoint: `${node}.example:${protocol === 'ferry' ? 51821 : 51820}`,
      },
      protocol,
      cipher: protocol === 'ferry' ? 'AES-256-GCM' : 'ChaCha20-Poly1305',
      transport: 'udp',
      latency: '18ms',
      interface: `fyt${request.tag.replace(/[^a-z0-9]/g, '').slice(0, 6)}${String(this.nextInterface++).padStart(6, '0')}`,
      tunnel_ipv4: `10.64.1.${this.nextInterface}`,
      destinations: service.cidrs.length + service.domains.length,
    };
    this.running.set(request.tag, tunnel);
    return { ...tunnel };
  }

  stop(tag: string): StopTunnelResponse {
    const tunnel = this.running.get(tag);
    if (!tunnel) throw new FerryError('tunnel-not-found', `no tunnel tagged ${tag} is running`);
    this.running.delete(tag);
    this.unregistered.push(tag);
    return { tag, service: tunnel.service, unregistered: true };
  }

  /** Sign-out (`unregister` false: the revocation takes them) and shutdown. */
  stopAll(unregister: boolean): void {
    for (const tag of [...this.running.keys()]) {
      this.running.delete(tag);
      if (unregister) this.unregistered.push(tag);
    }
  }
}
