// IP addresses as unsigned integers (IPv4 on numbers, IPv6 on bigints): what differs between the
// two families, and the parsing and printing of addresses and CIDRs.
import ipaddr from 'ipaddr.js';

export type Family = 'ipv4' | 'ipv6';
/** An address as an unsigned integer: a number for IPv4 (exact to 2^53), a bigint for IPv6. */
export type Address = number | bigint;
export type FamilyOf<A extends Address> = A extends number ? 'ipv4' : 'ipv6';
export type AddressOf<F extends Family> = F extends 'ipv4' ? number : bigint;

/**
 * What differs between the families. `next` and `prev` do not wrap: one past the last address
 * is 2^32 (2^128), which callers compare against and never store.
 */
export interface AddressSpace<A extends Address> {
  readonly family: FamilyOf<A>;
  readonly bits: 32 | 128;
  readonly max: A;
  readonly nftType: 'ipv4_addr' | 'ipv6_addr';
  next(a: A): A;
  prev(a: A): A;
  /** The shortest prefix length of a block that starts at `start` and ends at or before `end`. */
  widestPrefix(start: A, end: A): number;
  /** The last address of the block `start`/`len` (start aligned). */
  blockEnd(start: A, len: number): A;
  /** Addresses in [start, end]. */
  span(start: A, end: A): A;
  format(a: A): string;
}

const IPV4_SPACE: AddressSpace<number> = {
  family: 'ipv4',
  bits: 32,
  max: 0xffffffff,
  nftType: 'ipv4_addr',
  next: (a) => a + 1,
  prev: (a) => a - 1,
  widestPrefix(start, end) {
    // `start & -start` keeps the lowest set bit; ToInt32 keeps the bit pattern even at 2^31.
    let hostBits = start === 0 ? 32 : 31 - Math.clz32(start & -start);
    const span = end - start + 1;
    while (2 ** hostBits > span) hostBits--;
    return 32 - hostBits;
  },
  blockEnd: (start, len) => start + 2 ** (32 - len) - 1,
  span: (start, end) => end - start + 1,
  format: (a) => `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`,
};

/** 2^k for k = 0..128: block sizes without a shift per step. */
const POW2: readonly bigint[] = Array.from({ length: 129 }, (_, k) => 1n << BigInt(k));

/** Trailing zero bits of a non-zero bigint below 2^128 (binary search over POW2). */
function trailingZeros128(a: bigint): number {
  const lowest = a & -a;
  let lo = 0;
  let hi = 127;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (POW2[mid]! < lowest) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const IPV6_SPACE: AddressSpace<bigint> = {
  family: 'ipv6',
  bits: 128,
  max: POW2[128]! - 1n,
  nftType: 'ipv6_addr',
  next: (a) => a + 1n,
  prev: (a) => a - 1n,
  widestPrefix(start, end) {
    let hostBits = start === 0n ? 128 : trailingZeros128(start);
    const span = end - start + 1n;
    while (POW2[hostBits]! > span) hostBits--;
    return 128 - hostBits;
  },
  blockEnd: (start, len) => start + POW2[128 - len]! - 1n,
  span: (start, end) => end - start + 1n,
  format(a) {
    const parts = new Array<number>(8);
    for (let i = 7; i >= 0; i--) {
      parts[i] = Number(a & 0xffffn);
      a >>= 16n;
    }
    // ipaddr.js prints RFC 5952's canonical form, the one `nft list` prints back.
    return new ipaddr.IPv6(parts).toString();
  },
};

export function spaceOf<F extends Family>(family: F): AddressSpace<AddressOf<F>> {
  return (family === 'ipv4' ? IPV4_SPACE : IPV6_SPACE) as unknown as AddressSpace<AddressOf<F>>;
}

/** A network in CIDR notation, or one address; `address` is as written, `start` its network. */
export type ParsedCidr =
  | { family: 'ipv4'; address: number; len: number; start: number; end: number }
  | { family: 'ipv6'; address: bigint; len: number; start: bigint; end: bigint };

export type ParsedAddress = { family: 'ipv4'; value: number } | { family: 'ipv6'; value: bigint };

/**
 * An IPv4 address in four-part decimal (no `127.1`, no octal) or an IPv6 address without a zone;
 * null when the text is neither.
 */
export function parseAddress(text: string): ParsedAddress | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) {
    const [a, b, c, d] = ipaddr.IPv4.parse(text).octets as [number, number, number, number];
    return { family: 'ipv4', value: ((a * 256 + b) * 256 + c) * 256 + d };
  }
  if (text.includes(':') && !text.includes('%') && ipaddr.IPv6.isValid(text)) {
    const p = ipaddr.IPv6.parse(text).parts;
    let value = 0n;
    for (let i = 0; i < 8; i += 2) value = (value << 32n) | BigInt(p[i]! * 0x10000 + p[i + 1]!);
    return { family: 'ipv6', value };
  }
  return null;
}

export function formatAddress<F extends Family>(family: F, a: AddressOf<F>): string {
  return spaceOf(family).format(a);
}

/**
 * `address/len`, or an address alone (a /32 or /128); null when it is neither. The range is
 * the whole network: host bits after the prefix are dropped, since an interface's address with
 * its prefix (`192.168.1.23/24`) names its subnet. Callers that take a user's networks and
 * want them written exactly compare `address` with `start`.
 */
export function parseCidr(text: string): ParsedCidr | null {
  const slash = text.indexOf('/');
  const parsed = parseAddress(slash < 0 ? text : text.slice(0, slash));
  if (!parsed) return null;
  const bits = parsed.family === 'ipv4' ? 32 : 128;
  let len = bits;
  if (slash >= 0) {
    const lenText = text.slice(slash + 1);
    if (!/^(0|[1-9]\d{0,2})$/.test(lenText) || Number(lenText) > bits) return null;
    len = Number(lenText);
  }
  if (parsed.family === 'ipv4') {
    const size = 2 ** (32 - len);
    const start = parsed.value - (parsed.value % size);
    return { family: 'ipv4', address: parsed.value, len, start, end: start + size - 1 };
  }
  const size = POW2[128 - len]!;
  const start = parsed.value - (parsed.value % size);
  return { family: 'ipv6', address: parsed.value, len, start, end: start + size - 1n };
}
