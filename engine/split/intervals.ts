// Sets of IP addresses as sorted inclusive ranges (IPv4 on numbers, IPv6 on bigints): the
// arithmetic of the split tunnel's direct set, and its CIDR and nftables forms.
import ipaddr from 'ipaddr.js';

import type { NftObject } from '../os/firewall.js';

export type Family = 'ipv4' | 'ipv6';
/** An address as an unsigned integer: a number for IPv4 (exact to 2^53), a bigint for IPv6. */
export type Address = number | bigint;
export type FamilyOf<A extends Address> = A extends number ? 'ipv4' : 'ipv6';
export type AddressOf<F extends Family> = F extends 'ipv4' ? number : bigint;

/**
 * The addresses of one family as sorted, disjoint, non-adjacent inclusive ranges, kept flat:
 * `bounds` is [start0, end0, start1, end1, ...]. Flat so that a country's 40 000 ranges are one
 * array of unboxed numbers rather than 40 000 small arrays. Every function here returns sets in
 * this form and relies on it in its arguments; build them with fromRanges or fromCidrs.
 */
export interface IntervalSet<A extends Address> {
  readonly family: FamilyOf<A>;
  readonly bounds: readonly A[];
}
export type Ipv4Set = IntervalSet<number>;
export type Ipv6Set = IntervalSet<bigint>;
export type SetOf<F extends Family> = IntervalSet<AddressOf<F>>;

/** One set per family: what a CIDR list or a routing decision spans. */
export interface FamilyIntervals {
  v4: Ipv4Set;
  v6: Ipv6Set;
}

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

function spaceOfSet<A extends Address>(set: IntervalSet<A>): AddressSpace<A> {
  return spaceOf(set.family) as unknown as AddressSpace<A>;
}

export function emptySet<F extends Family>(family: F): SetOf<F> {
  return { family, bounds: [] } as unknown as SetOf<F>;
}

/**
 * Appends [start, end] to flat bounds that are sorted by start, merging it into the last range
 * when they overlap or touch. The one merge step of every builder here.
 */
function appendMerged<A extends Address>(space: AddressSpace<A>, out: A[], start: A, end: A): void {
  const last = out.length - 1;
  if (last > 0 && start <= space.next(out[last]!)) {
    if (end > out[last]!) out[last] = end;
  } else out.push(start, end);
}

/**
 * The set of flat [start, end, ...] ranges in any order, overlapping or not. A range that is
 * not inside the family's space, or ends before it starts, is a bug of the caller: RangeError.
 */
export function fromRanges<A extends Address>(
  family: FamilyOf<A>,
  bounds: readonly A[],
): IntervalSet<A> {
  const space = spaceOf(family) as unknown as AddressSpace<A>;
  if (bounds.length % 2 !== 0) throw new RangeError('ranges come as start, end pairs');
  const n = bounds.length / 2;
  let sorted = true;
  for (let i = 0; i < n; i++) {
    const start = bounds[2 * i]!;
    const end = bounds[2 * i + 1]!;
    if (
      typeof start !== typeof space.max ||
      typeof end !== typeof space.max ||
      !(start >= 0) ||
      !(start <= end) ||
      !(end <= space.max) ||
      (family === 'ipv4' && !(Number.isInteger(start) && Number.isInteger(end)))
    )
      throw new RangeError(`not an ${family} range: ${String(start)}..${String(end)}`);
    if (i > 0 && start < bounds[2 * i - 2]!) sorted = false;
  }
  const out: A[] = [];
  if (sorted) {
    for (let i = 0; i < n; i++) appendMerged(space, out, bounds[2 * i]!, bounds[2 * i + 1]!);
  } else {
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((i, j) => compare(bounds[2 * i]!, bounds[2 * j]!));
    for (const i of order) appendMerged(space, out, bounds[2 * i]!, bounds[2 * i + 1]!);
  }
  return { family, bounds: out };
}

function compare<A extends Address>(a: A, b: A): number {
  return a < b ? -1 : a > b ? 1 : 0;
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

/**
 * The addresses of CIDRs and single addresses of both families (see parseCidr). One that is
 * neither is the caller's bug: TypeError, so that a set never silently misses a network.
 */
export function fromCidrs(cidrs: Iterable<string>): FamilyIntervals {
  const v4: number[] = [];
  const v6: bigint[] = [];
  for (const cidr of cidrs) {
    const r = parseCidr(cidr);
    if (!r) throw new TypeError(`not an IPv4 or IPv6 network: ${JSON.stringify(cidr)}`);
    if (r.family === 'ipv4') v4.push(r.start, r.end);
    else v6.push(r.start, r.end);
  }
  return { v4: fromRanges('ipv4', v4), v6: fromRanges('ipv6', v6) };
}

/** a ∪ b. */
export function union<A extends Address>(a: IntervalSet<A>, b: IntervalSet<A>): IntervalSet<A> {
  const space = spaceOfSet(a);
  const x = a.bounds;
  const y = b.bounds;
  const out: A[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (j >= y.length || (i < x.length && x[i]! <= y[j]!)) {
      appendMerged(space, out, x[i]!, x[i + 1]!);
      i += 2;
    } else {
      appendMerged(space, out, y[j]!, y[j + 1]!);
      j += 2;
    }
  }
  return { family: a.family, bounds: out };
}

/** a − b: the addresses of a that are not in b. */
export function subtract<A extends Address>(a: IntervalSet<A>, b: IntervalSet<A>): IntervalSet<A> {
  const space = spaceOfSet(a);
  const x = a.bounds;
  const y = b.bounds;
  const out: A[] = [];
  let j = 0;
  for (let i = 0; i < x.length; i += 2) {
    const end = x[i + 1]!;
    let cursor = x[i]!;
    while (j < y.length && y[j + 1]! < cursor) j += 2;
    // y[j] may reach into the next range of a, so j stays on the last range that overlapped.
    let k = j;
    while (k < y.length && y[k]! <= end) {
      if (y[k]! > cursor) out.push(cursor, space.prev(y[k]!));
      cursor = space.next(y[k + 1]!);
      if (cursor > end) break;
      k += 2;
    }
    if (cursor <= end) out.push(cursor, end);
    j = k;
  }
  return { family: a.family, bounds: out };
}

/** Whether the set holds the address (binary search over the starts). */
export function contains<A extends Address>(set: IntervalSet<A>, address: A): boolean {
  const b = set.bounds;
  let lo = 0;
  let hi = (b.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (b[2 * mid]! <= address) lo = mid + 1;
    else hi = mid - 1;
  }
  return hi >= 0 && address <= b[2 * hi + 1]!;
}

/** How many ranges the set holds (after merging). */
export function rangeCount(set: IntervalSet<Address>): number {
  return set.bounds.length >> 1;
}

/** How many addresses the set holds. */
export function count<A extends Address>(set: IntervalSet<A>): A {
  const space = spaceOfSet(set);
  const b = set.bounds;
  if (space.family === 'ipv4') {
    let n = 0;
    for (let i = 0; i < b.length; i += 2) n += (b[i + 1] as number) - (b[i] as number) + 1;
    return n as A;
  }
  let n = 0n;
  for (let i = 0; i < b.length; i += 2) n += (b[i + 1] as bigint) - (b[i] as bigint) + 1n;
  return n as A;
}

/**
 * The set as the fewest CIDR blocks (`a.b.c.d/len`, `x::/len`): the maximal aligned blocks, so
 * no two of them join into one; a single address keeps its /32 or /128.
 */
export function toCidrs(set: IntervalSet<Address>): string[] {
  const space = spaceOfSet(set);
  const b = set.bounds;
  const out: string[] = [];
  for (let i = 0; i < b.length; i += 2) {
    const end = b[i + 1]!;
    let cursor = b[i]!;
    while (cursor <= end) {
      const len = space.widestPrefix(cursor, end);
      out.push(`${space.format(cursor)}/${len}`);
      cursor = space.next(space.blockEnd(cursor, len));
    }
  }
  return out;
}

/** One element of an nftables interval set in `nft -j`'s JSON. */
export type NftSetElement =
  string | { prefix: { addr: string; len: number } } | { range: [string, string] };

/**
 * The set as the elements of an nftables `interval` set: a bare address for one address, a
 * prefix when a range is exactly one block, else a range; one element per range, which is what
 * nft stores either way (a range costs the kernel no more than a prefix).
 */
export function toNftElements(set: IntervalSet<Address>): NftSetElement[] {
  const space = spaceOfSet(set);
  const b = set.bounds;
  const out: NftSetElement[] = new Array<NftSetElement>(b.length >> 1);
  for (let i = 0; i < b.length; i += 2) {
    const start = b[i]!;
    const end = b[i + 1]!;
    if (start === end) {
      out[i >> 1] = space.format(start);
      continue;
    }
    const len = space.widestPrefix(start, end);
    out[i >> 1] =
      space.blockEnd(start, len) === end
        ? { prefix: { addr: space.format(start), len } }
        : { range: [space.format(start), space.format(end)] };
  }
  return out;
}

/**
 * A named nftables interval set holding `set`, as a table body object for the firewall. nft
 * refuses an empty `elem` list, so an empty set has none.
 */
export function nftIntervalSet(name: string, set: IntervalSet<Address>): NftObject {
  const elem = toNftElements(set);
  return {
    set: {
      name,
      type: spaceOfSet(set).nftType,
      flags: ['interval'],
      ...(elem.length > 0 ? { elem } : {}),
    },
  };
}

/**
 * CIDRs as interval-set elements nft takes in one transaction: two prefixes either nest or are
 * disjoint, so dropping every prefix inside another leaves no overlap (nft refuses overlaps).
 */
export function prefixElements(cidrs: readonly string[]): NftSetElement[] {
  const parsed = [...new Set(cidrs)].map((c) => ({ cidr: c, range: ipaddr.parseCIDR(c) }));
  const outer = parsed.filter(
    (p, i) =>
      !parsed.some(
        (q, j) =>
          j !== i &&
          q.range[0].kind() === p.range[0].kind() &&
          (q.range[1] < p.range[1] || (q.range[1] === p.range[1] && j < i)) &&
          p.range[0].match(q.range),
      ),
  );
  return outer.map(({ range: [address, len] }) => {
    const full = address.kind() === 'ipv4' ? 32 : 128;
    const network =
      address.kind() === 'ipv4'
        ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${len}`)
        : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${len}`);
    return len === full ? network.toString() : { prefix: { addr: network.toString(), len } };
  });
}
