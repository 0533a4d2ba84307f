// Network links (the tunnel interfaces): the seam the engine changes them through, and its
// Linux implementation with `ip`.
import { addressFamily, checkInteger, checkInterfaceName, prefixFamily } from './arguments.js';
import { checkOutput, runCommand, type CommandRunner } from './command.js';

/**
 * `wireguard`: the kernel's WireGuard device, where the module exists (otherwise wireguard-go
 * makes its own TUN). `tun`: a persistent TUN device.
 */
export type LinkKind = 'wireguard' | 'tun';

export interface LinkInfo {
  name: string;
  /** The kernel's kind (tun, wireguard, veth...), null for plain devices. */
  kind: string | null;
  mtu: number;
  /** Administratively up. */
  up: boolean;
  /** Addresses as prefixes, e.g. 10.64.0.2/32. */
  addresses: string[];
}

/**
 * The links the engine makes and configures. Every change is idempotent where it can be:
 * deleting a link that is gone, setting an address it has, removing one it lacks all succeed.
 * Failures are FerryError os-command-failed; bad arguments (a bug) are TypeErrors.
 */
export interface Links {
  /** Creates a link; fails when one of that name exists. */
  create(name: string, kind: LinkKind): Promise<void>;
  delete(name: string): Promise<void>;
  /** Gives the link the address `prefix` (addr/len), replacing its lifetime when present. */
  setAddress(name: string, prefix: string): Promise<void>;
  removeAddress(name: string, prefix: string): Promise<void>;
  setMtu(name: string, mtu: number): Promise<void>;
  setUp(name: string, up: boolean): Promise<void>;
  /** The link, or null when there is none of that name. */
  get(name: string): Promise<LinkInfo | null>;
  list(): Promise<LinkInfo[]>;
}

interface IpLink {
  ifname: string;
  mtu: number;
  flags?: string[];
  linkinfo?: { info_kind?: string };
  addr_info?: { local?: string; prefixlen?: number }[];
}

function toLinkInfo(l: IpLink): LinkInfo {
  return {
    name: l.ifname,
    kind: l.linkinfo?.info_kind ?? null,
    mtu: l.mtu,
    up: (l.flags ?? []).includes('UP'),
    addresses: (l.addr_info ?? [])
      .filter((a) => a.local !== undefined && a.prefixlen !== undefined)
      .map((a) => `${a.local}/${a.prefixlen}`),
  };
}

/** A host prefix when no length is given. */
function withLength(prefix: string): string {
  return prefix.includes('/') ? prefix : `${prefix}/${addressFamily(prefix) === 4 ? 32 : 128}`;
}

/** `ip` (iproute2). The runner is the seam: tests record argv or run it inside a namespace. */
export class LinuxLinks implements Links {
  constructor(private readonly run: CommandRunner = runCommand) {}

  async create(name: string, kind: LinkKind): Promise<void> {
    checkInterfaceName(name);
    const args =
      kind === 'wireguard'
        ? ['link', 'add', 'dev', name, 'type', 'wireguard']
        : ['tuntap', 'add', 'dev', name, 'mode', 'tun'];
    checkOutput(await this.run('ip', args), 'ip', `create the ${kind} link ${name}`);
  }

  async delete(name: string): Promise<void> {
    checkInterfaceName(name);
    const out = await this.run('ip', ['link', 'delete', 'dev', name]);
    if (out.exitCode !== 0 && /Cannot find device/.test(out.stderr)) return;
    checkOutput(out, 'ip', `delete the link ${name}`);
  }

  async setAddress(name: string, prefix: string): Promise<void> {
    checkInterfaceName(name);
    const family = prefixFamily(prefix, 'link address');
    const out = await this.run('ip', [
      `-${family}`,
      'address',
      'replace',
      withLength(prefix),
      'dev',
      name,
    ]);
    checkOutput(out, 'ip', `set an address on ${name}`);
  }

  async removeAddress(name: string, prefix: string): Promise<void> {
    checkInterfaceName(name);
    const family = prefixFamily(prefix, 'link address');
    const out = await this.run('ip', [
      `-${family}`,
      'address',
      'delete',
      withLength(prefix),
      'dev',
      name,
    ]);
    // "Address not found" (ipv4) / "Cannot assign requested address" (ipv6): already gone.
    if (out.exitCode !== 0 && /address not found|Cannot assign requested address/i.test(out.stderr))
      return;
    checkOutput(out, 'ip', `remove an address from ${name}`);
  }

  async setMtu(name: string, mtu: number): Promise<void> {
    checkInterfaceName(name);
    checkInteger(mtu, 576, 65535, 'the MTU');
    const out = await this.run('ip', ['link', 'set', 'dev', name, 'mtu', String(mtu)]);
    checkOutput(out, 'ip', `set the MTU of ${name}`);
  }

  async setUp(name: string, up: boolean): Promise<void> {
    checkInterfaceName(name);
    const out = await this.run('ip', ['link', 'set', 'dev', name, up ? 'up' : 'down']);
    checkOutput(out, 'ip', `bring ${name} ${up ? 'up' : 'down'}`);
  }

  async get(name: string): Promise<LinkInfo | null> {
    checkInterfaceName(name);
    const out = await this.run('ip', ['-d', '-j', 'address', 'show', 'dev', name]);
    if (out.exitCode !== 0 && /does not exist/.test(out.stderr)) return null;
    checkOutput(out, 'ip', `read the link ${name}`);
    const links = JSON.parse(out.stdout) as IpLink[];
    return links[0] ? toLinkInfo(links[0]) : null;
  }

  async list(): Promise<LinkInfo[]> {
    const out = await this.run('ip', ['-d', '-j', 'address', 'show']);
    checkOutput(out, 'ip', 'list the links');
    return (JSON.parse(out.stdout) as IpLink[]).map(toLinkInfo);
  }
}
