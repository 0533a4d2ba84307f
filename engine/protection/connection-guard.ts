// What the engine's protections hold at each stage of a connection (the kill switch, the split
// tunnel and its rules, the IPv6 block), kept as facts the engine updates, and put in force as
// one policy on every change. (The system resolver is engine/dns's.)
import { isIP } from 'node:net';
import { isDeepStrictEqual } from 'node:util';

import type { ClientConfig, ConnectResponse } from '../../contracts/index.js';
import type { Links } from '../../platform/os/links.js';
import type {
  DhcpLink,
  Endpoint,
  FamilySets,
  NftSetElement,
  ProtectionPolicy,
} from './firewall-policy.js';
import { SerialQueue } from '../serial-queue.js';
import { dhcpLinks, lanCidrs, lanElements } from './lan.js';
import type { Protection } from './protection.js';

/**
 * `off`: no connection; `connecting` until the tunnel carries traffic; `connected`;
 * `reconnecting` while a lost tunnel is recovered or replaced; `error` after a failure, until
 * the user disconnects or connects again.
 */
export type GuardStage = 'off' | 'connecting' | 'connected' | 'reconnecting' | 'error';

export interface GuardFacts {
  stage: GuardStage;
  /** kill_switch: nothing leaves outside a tunnel but what the policy allows. */
  killSwitch: boolean;
  /** lockdown: the kill switch holds while disconnected too. */
  lockdown: boolean;
  allowLan: boolean;
  /** The control plane's addresses and port. */
  controlPlane: readonly Endpoint[];
  /** The node endpoints of the current attempt or connection (the engine's own sockets). */
  nodes: readonly Endpoint[];
  /** The node endpoints of the service tunnels, by tag (their sockets carry the same mark). */
  serviceNodes: Readonly<Record<string, readonly Endpoint[]>>;
  /** The nodes' latency probe responders (UDP, authenticated), asked before a connect and by latency-check. */
  probes: readonly Endpoint[];
  /** The resolvers in use through the tunnel. */
  dns: readonly string[];
  /** The home network's resolvers the engine's resolver asks around the tunnel (IPv4). */
  homeDns: readonly string[];
  /** The split rules' version: it changes with the rules, and their sets start empty again. */
  rulesVersion: number;
  /** The split tunnel's sets (null: split off, or the home country unknown). */
  split: ProtectionPolicy['split'];
  /** Addresses that take the tunnel even where the split would send them directly (stream mode). */
  pinned: readonly NftSetElement[];
}

/**
 * The policy for the facts, null when nothing is to be held. The kill switch holds from the
 * start of a connect to an explicit disconnect (through reconnecting and error), and while
 * disconnected with lockdown; without it, a tunnel still gets the split tunnel and the IPv6
 * block, and an error leaves the host as it was before connecting.
 */
export function guardPolicy(
  f: GuardFacts,
  lan: FamilySets,
  dhcp: readonly DhcpLink[] = [],
): ProtectionPolicy | null {
  if (!holdsPolicy(f)) return null;
  const block = blocks(f);
  const tunnel = hasTunnel(f);
  return {
    block,
    blockIpv6: true,
    nodes: [...(f.stage === 'off' ? [] : f.nodes), ...Object.values(f.serviceNodes).flat()],
    // The engine's probes go around the tunnel (they measure the path it takes), by their mark.
    probes: f.stage === 'off' ? [] : f.probes,
    controlPlane: f.controlPlane,
    // Without the kill switch nothing blocks the LAN; its IPv6 must not fall to the IPv6 block.
    lan: f.allowLan || !f.killSwitch ? lan : null,
    dhcpLinks: dhcp,
    dns: tunnel ? f.dns : [],
    split: f.split && { ...f.split, pinned: f.pinned },
    // The split rules steer while a tunnel carries traffic, with or without the split by country.
    rules: tunnel ? f.rulesVersion : null,
    homeDns: tunnel ? f.homeDns : [],
  };
}

const blocks = (f: GuardFacts) => f.killSwitch && (f.stage !== 'off' || f.lockdown);
const hasTunnel = (f: GuardFacts) => f.stage === 'connected' || f.stage === 'reconnecting';
/** Whether the facts call for a policy at all (guardPolicy is null otherwise). */
const holdsPolicy = (f: GuardFacts) => blocks(f) || hasTunnel(f);

/** The settings of the configuration the protections follow. */
export function guardSettings(
  config: Pick<ClientConfig, 'kill_switch' | 'lockdown' | 'allow_lan'>,
): Pick<GuardFacts, 'killSwitch' | 'lockdown' | 'allowLan'> {
  return {
    killSwitch: config.kill_switch,
    lockdown: config.lockdown,
    allowLan: config.allow_lan,
  };
}

/** The resolvers in use through the tunnel: the node's (dns auto) or the one configured. */
export function dnsServers(config: ClientConfig, answer: ConnectResponse): string[] {
  if (config.dns !== 'auto') return [config.dns];
  return answer.tunnel.dns.filter((a) => isIP(a) !== 0);
}

const INITIAL: GuardFacts = {
  stage: 'off',
  killSwitch: true,
  lockdown: false,
  allowLan: false,
  controlPlane: [],
  nodes: [],
  serviceNodes: {},
  probes: [],
  dns: [],
  homeDns: [],
  rulesVersion: 0,
  split: null,
  pinned: [],
};

/** The facts a connection's state gives whole (the service tunnels and the rules' version outlive them). */
export type StateFacts = Omit<GuardFacts, 'serviceNodes' | 'rulesVersion'>;

export interface ConnectionGuardDeps {
  protection: Protection;
  /** This host's links, for the LAN's subnets. */
  links: Pick<Links, 'list'>;
}

export class ConnectionGuard {
  #facts: GuardFacts = INITIAL;
  readonly #serial = new SerialQueue();

  constructor(private readonly deps: ConnectionGuardDeps) {}

  get facts(): GuardFacts {
    return this.#facts;
  }

  /** The policy in force (null: none). */
  get policy(): ProtectionPolicy | null {
    return this.deps.protection.inForce;
  }

  /**
   * Takes in the changed facts and puts the resulting policy in force. Rejects when it could not
   * be (the facts are kept: the next update tries again); a connect must then stop, since the
   * protection it would run under does not hold.
   */
  async update(change: Partial<GuardFacts>): Promise<void> {
    this.#facts = { ...this.#facts, ...change };
    // One transaction at a time, each from the facts as they are when it runs: an update that
    // began earlier (a relay list's, a service tunnel's) never puts an older policy in force
    // after a newer one.
    return this.#serial.run(() => this.enforceFacts());
  }

  private async enforceFacts(): Promise<void> {
    const f = this.#facts;
    // The LAN's sets and DHCP's links follow this host's links as they are now.
    const links = holdsPolicy(f) ? await this.deps.links.list() : [];
    const wantsLan = f.allowLan || !f.killSwitch;
    const lan = wantsLan ? lanElements(lanCidrs(links)) : { v4: [], v6: [] };
    const policy = guardPolicy(f, lan, dhcpLinks(links));
    // The same policy again changes nothing: no transaction. (None is always enforced: at start
    // it removes what a crashed run left, which this process never put in force.)
    const inForce = this.deps.protection.inForce;
    if (policy !== null && inForce !== null && isDeepStrictEqual(policy, inForce)) return;
    await this.deps.protection.enforce(policy);
  }

  /**
   * Puts a state's whole policy in force, in one transaction: every fact is given (the service
   * tunnels' nodes, which outlive the main connection's states, are kept as they are).
   */
  apply(facts: StateFacts): Promise<void> {
    return this.update(facts);
  }

  /** The split rules changed: their sets start again, empty (their addresses went with them). */
  rulesChanged(): Promise<void> {
    return this.update({ rulesVersion: this.#facts.rulesVersion + 1 });
  }

  /** Lets a service tunnel's node endpoints out (null: the tunnel is gone). */
  async serviceTunnel(tag: string, endpoints: readonly Endpoint[] | null): Promise<void> {
    const serviceNodes = { ...this.#facts.serviceNodes };
    if (endpoints) serviceNodes[tag] = endpoints;
    else delete serviceNodes[tag];
    await this.update({ serviceNodes });
  }

  /** Whether a protection table exists (at start: one a crashed run left). */
  present(): Promise<boolean> {
    return this.deps.protection.present();
  }
}
