// The values the OS seams accept (interface names, addresses, prefixes, numbers), checked before
// they reach a tool's argv: a value that could read as an option or a keyword is a bug.
import { isIP } from 'node:net';

/** The kernel's limit (IFNAMSIZ - 1), and no leading dash (it would read as an option). */
const IFNAME = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,14}$/;

export function checkInterfaceName(name: string): string {
  if (!IFNAME.test(name))
    throw new TypeError(`not a usable interface name: ${JSON.stringify(name)}`);
  return name;
}

export type Family = 4 | 6;

/** An IP address's family; TypeError (without the value: it may be private) when it is none. */
export function addressFamily(address: string, what = 'address'): Family {
  const v = isIP(address);
  if (v === 0) throw new TypeError(`the ${what} is not an IP address`);
  return v as Family;
}

/** A prefix `addr/len` (a bare address is a host prefix); returns its family. */
export function prefixFamily(prefix: string, what = 'prefix'): Family {
  const [addr, len, extra] = prefix.split('/');
  if (addr === undefined || extra !== undefined) throw new TypeError(`the ${what} is not a prefix`);
  const family = addressFamily(addr, what);
  if (len !== undefined) {
    const max = family === 4 ? 32 : 128;
    if (!/^\d{1,3}$/.test(len) || Number(len) > max)
      throw new TypeError(`the ${what} has no valid prefix length`);
  }
  return family;
}

/** A whole number in [min, max]. */
export function checkInteger(n: number, min: number, max: number, what: string): number {
  if (!Number.isInteger(n) || n < min || n > max)
    throw new TypeError(`${what} must be a whole number from ${min} to ${max}`);
  return n;
}
