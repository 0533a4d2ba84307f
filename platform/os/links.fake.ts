// An in-memory Links for unit tests: the same argument checks and the same idempotence as
// LinuxLinks (seams.contract.ts holds both to it), every call journaled, failures on demand.
import { checkInteger, checkInterfaceName, prefixFamily } from './arguments.js';
import { Faults, hostPrefix, Journal, refused } from './journal.fake.js';
import type { LinkInfo, LinkKind, Links } from './links.js';

export class FakeLinks extends Faults implements Links {
  readonly links = new Map<string, LinkInfo>();
  /** Told when a link goes down or away (the kernel drops the routes through it). */
  readonly onDown: ((name: string) => void)[] = [];

  constructor(private readonly journal = new Journal()) {
    super();
  }

  /** A link someone else made (the data plane's TUN, wireguard-go's), as the OS would show it. */
  addExisting(name: string, kind: string | null = 'tun', mtu = 1500): void {
    this.links.set(name, { name, kind, mtu, up: false, addresses: [] });
  }

  /** Removes a link as its owner's exit would (wireguard-go's TUN goes with the process). */
  vanish(name: string): void {
    if (this.links.delete(name)) for (const f of this.onDown) f(name);
  }

  async create(name: string, kind: LinkKind): Promise<void> {
    this.begin('create', [name, kind]);
    checkInterfaceName(name);
    if (this.links.has(name)) throw refused(`create the ${kind} link ${name}`, 'File exists');
    this.links.set(name, {
      name,
      kind,
      mtu: kind === 'wireguard' ? 1420 : 1500,
      up: false,
      addresses: [],
    });
  }

  async delete(name: string): Promise<void> {
    this.begin('delete', [name]);
    this.vanish(checkInterfaceName(name));
  }

  async setAddress(name: string, prefix: string): Promise<void> {
    this.begin('setAddress', [name, prefix]);
    prefixFamily(prefix, 'link address');
    const link = this.need(name, `set an address on ${name}`);
    const p = hostPrefix(prefix);
    if (!link.addresses.includes(p)) link.addresses.push(p);
  }

  async removeAddress(name: string, prefix: string): Promise<void> {
    this.begin('removeAddress', [name, prefix]);
    prefixFamily(prefix, 'link address');
    const link = this.need(name, `remove an address from ${name}`);
    link.addresses = link.addresses.filter((a) => a !== hostPrefix(prefix));
  }

  async setMtu(name: string, mtu: number): Promise<void> {
    this.begin('setMtu', [name, mtu]);
    checkInteger(mtu, 576, 65535, 'the MTU');
    this.need(name, `set the MTU of ${name}`).mtu = mtu;
  }

  async setUp(name: string, up: boolean): Promise<void> {
    this.begin('setUp', [name, up]);
    const link = this.need(name, `bring ${name} ${up ? 'up' : 'down'}`);
    const wasUp = link.up;
    link.up = up;
    if (wasUp && !up) for (const f of this.onDown) f(name);
  }

  async get(name: string): Promise<LinkInfo | null> {
    this.begin('get', [name]);
    const l = this.links.get(checkInterfaceName(name));
    return l ? structuredClone(l) : null;
  }

  async list(): Promise<LinkInfo[]> {
    this.begin('list', []);
    return [...this.links.values()].map((l) => structuredClone(l));
  }

  private begin(op: string, args: unknown[]): void {
    this.journal.record('links', op, args);
    this.take(op);
  }

  private need(name: string, what: string): LinkInfo {
    const l = this.links.get(checkInterfaceName(name));
    if (!l) throw refused(what, `Cannot find device "${name}"`);
    return l;
  }
}
