// Sets of IP addresses as sorted inclusive ranges (IPv4 on numbers, IPv6 on bigints): the
// arithmetic of the split tunnel's direct set, and its CIDR form.
import {
  parseCidr,
  spaceOf,
  type Address,
  type AddressOf,
  type AddressSpace,
  type Family,
  type FamilyOf,
} from './address-space.js';

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

/** The address space of a set's family. */
export function spaceOfSet<A extends Address>(set: IntervalSet<A>): AddressSpace<A> {
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
