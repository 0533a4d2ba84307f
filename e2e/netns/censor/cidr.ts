// IPv4 prefixes as the censor's inspector matches them (home, hosting).

function toInt(a: string): number {
  const p = a.split('.').map(Number);
  if (p.length !== 4 || p.some((x) => !Number.isInteger(x) || x < 0 || x > 255))
    throw new Error(`not an IPv4 address: ${a}`);
  return ((p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!) >>> 0;
}

/** A matcher for a list of IPv4 CIDRs (a bare address is a /32). */
export function cidrMatcher(cidrs: readonly string[]): (address: string) => boolean {
  const nets = cidrs.map((c) => {
    const [a, len = '32'] = c.split('/');
    const bits = Number(len);
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return { net: (toInt(a!) & mask) >>> 0, mask };
  });
  return (address) => {
    let x: number;
    try {
      x = toInt(address);
    } catch {
      return false;
    }
    return nets.some((n) => (x & n.mask) >>> 0 === n.net);
  };
}
