// Address-set arithmetic: merge, union, subtract, contains and count agree with a set of
// addresses kept one by one; the CIDR cover is exact and minimal; the nftables elements are the
// forms nft -j takes; both families, at the bottom, middle and top of their spaces.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCidr, type Address, type FamilyOf } from './address-space.js';
import {
  contains,
  count,
  fromCidrs,
  fromRanges,
  rangeCount,
  subtract,
  toCidrs,
  union,
  type IntervalSet,
} from './intervals.js';
import { nftIntervalSet, toNftElements } from './nft-elements.js';

/** Random sets live in a window of this many addresses, so the naive model can list them. */
const WINDOW = 64;

const TOP_V4 = 2 ** 32;
const TOP_V6 = 1n << 128n;
const CASES = [
  { family: 'ipv4', base: 0 },
  { family: 'ipv4', base: 2 ** 31 - 32 },
  { family: 'ipv4', base: TOP_V4 - WINDOW },
  { family: 'ipv6', base: 0n },
  { family: 'ipv6', base: (1n << 64n) - 32n },
  { family: 'ipv6', base: TOP_V6 - BigInt(WINDOW) },
] as const;

type Family = FamilyOf<Address>;
const at = (base: Address, k: number): Address =>
  typeof base === 'number' ? base + k : base + BigInt(k);
const offset = (base: Address, a: Address): number =>
  typeof base === 'number' ? (a as number) - base : Number((a as bigint) - base);

/** Ranges as offsets into the window, in any order, overlapping or not. */
const rangesArb = fc.array(
  fc
    .tuple(fc.integer({ min: 0, max: WINDOW - 1 }), fc.integer({ min: 0, max: WINDOW - 1 }))
    .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
  { maxLength: 8 },
);

function build(family: Family, base: Address, ranges: readonly (readonly [number, number])[]) {
  return fromRanges<Address>(
    family,
    ranges.flatMap(([a, b]) => [at(base, a), at(base, b)]),
  );
}

function model(ranges: readonly (readonly [number, number])[]): boolean[] {
  const m = new Array<boolean>(WINDOW).fill(false);
  for (const [a, b] of ranges) for (let k = a; k <= b; k++) m[k] = true;
  return m;
}

/** Members of the set, as window offsets; a member outside the window fails the test. */
function members(set: IntervalSet<Address>, base: Address): boolean[] {
  const m = new Array<boolean>(WINDOW).fill(false);
  const b = set.bounds;
  for (let i = 0; i < b.length; i += 2) {
    const lo = offset(base, b[i]!);
    const hi = offset(base, b[i + 1]!);
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThan(WINDOW);
    for (let k = lo; k <= hi; k++) m[k] = true;
  }
  return m;
}

/** Sorted, each range well formed, and a gap of at least one address between neighbours. */
function expectNormal(set: IntervalSet<Address>, base: Address): void {
  const b = set.bounds.map((a) => offset(base, a));
  for (let i = 0; i < b.length; i += 2) {
    expect(b[i]!).toBeLessThanOrEqual(b[i + 1]!);
    if (i > 0) expect(b[i]!).toBeGreaterThan(b[i - 1]! + 1);
  }
}

describe.each(CASES)('$family sets near $base', ({ family, base }) => {
  it('fromRanges sorts and merges overlapping and adjacent ranges', () => {
    fc.assert(
      fc.property(rangesArb, (ranges) => {
        const set = build(family, base, ranges);
        expectNormal(set, base);
        expect(members(set, base)).toEqual(model(ranges));
      }),
    );
  });

  it('union and subtract agree with the naive model', () => {
    fc.assert(
      fc.property(rangesArb, rangesArb, (ra, rb) => {
        const a = build(family, base, ra);
        const b = build(family, base, rb);
        const ma = model(ra);
        const mb = model(rb);
        const u = union(a, b);
        const d = subtract(a, b);
        expectNormal(u, base);
        expectNormal(d, base);
        expect(members(u, base)).toEqual(ma.map((x, k) => x || mb[k]!));
        expect(members(d, base)).toEqual(ma.map((x, k) => x && !mb[k]!));
      }),
    );
  });

  it('contains and count agree with the naive model, at the edges of the window too', () => {
    fc.assert(
      fc.property(rangesArb, (ranges) => {
        const set = build(family, base, ranges);
        const m = model(ranges);
        for (let k = -2; k < WINDOW + 2; k++) {
          const a = at(base, k);
          if (a < 0 || a >= (family === 'ipv4' ? TOP_V4 : TOP_V6)) continue;
          expect(contains(set, a)).toBe(m[k] ?? false);
        }
        const n = m.filter(Boolean).length;
        expect(count(set)).toBe(family === 'ipv4' ? n : BigInt(n));
      }),
    );
  });

  it('toCidrs covers the set exactly with maximal aligned blocks (the fewest there are)', () => {
    fc.assert(
      fc.property(rangesArb, (ranges) => {
        const set = build(family, base, ranges);
        const m = model(ranges);
        const covered = new Array<boolean>(WINDOW).fill(false);
        for (const cidr of toCidrs(set)) {
          const block = parseCidr(cidr)!;
          expect(block.family).toBe(family);
          // Written network-exact: the address is the block's first.
          expect(block.address).toBe(block.start);
          const lo = offset(base, block.start);
          const hi = offset(base, block.end);
          for (let k = lo; k <= hi; k++) {
            expect(covered[k]).toBe(false);
            covered[k] = true;
          }
          // Its parent block is not inside the set, or the two halves would have been one.
          if (block.len > 0) {
            const parent = parseCidr(`${cidr.split('/')[0]}/${block.len - 1}`)!;
            const plo = offset(base, parent.start);
            const phi = offset(base, parent.end);
            const inside =
              plo >= 0 && phi < WINDOW && m.slice(plo, phi + 1).every((x) => x === true);
            expect(inside).toBe(false);
          }
        }
        expect(covered).toEqual(m);
      }),
    );
  });

  it('toNftElements gives one element per range: an address, a prefix, or a range', () => {
    fc.assert(
      fc.property(rangesArb, (ranges) => {
        const set = build(family, base, ranges);
        const elements = toNftElements(set);
        expect(elements).toHaveLength(rangeCount(set));
        elements.forEach((el, i) => {
          const start = set.bounds[2 * i]!;
          const end = set.bounds[2 * i + 1]!;
          if (typeof el === 'string') {
            expect(start).toBe(end);
            expect(parseCidr(el)).toMatchObject({ start, end });
          } else if ('prefix' in el) {
            expect(parseCidr(`${el.prefix.addr}/${el.prefix.len}`)).toMatchObject({
              address: start,
              start,
              end,
            });
          } else {
            expect(parseCidr(el.range[0])!.start).toBe(start);
            expect(parseCidr(el.range[1])!.start).toBe(end);
            // Not expressible as one prefix, or it would have been one.
            expect(
              toCidrs({ family, bounds: [start, end] } as IntervalSet<Address>).length,
            ).toBeGreaterThan(1);
          }
        });
      }),
    );
  });
});

describe('CIDRs and addresses', () => {
  it('reads networks, lone addresses and interface addresses with their prefix', () => {
    const sets = fromCidrs(['192.168.1.23/24', '10.64.0.1', '2001:db8::1/64', 'fe80::1']);
    expect(toCidrs(sets.v4)).toEqual(['10.64.0.1/32', '192.168.1.0/24']);
    expect(toCidrs(sets.v6)).toEqual(['2001:db8::/64', 'fe80::1/128']);
  });

  it('refuses non-addresses: short or octal IPv4, a zone, a prefix over the width', () => {
    for (const bad of [
      '127.1',
      '010.0.0.1',
      '1.2.3.4/33',
      'fe80::1%eth0',
      '::/129',
      '1.2.3.4/',
      'x',
    ])
      expect(parseCidr(bad), bad).toBeNull();
    expect(() => fromCidrs(['10.0.0.0/8', 'nonsense'])).toThrow(TypeError);
  });

  it('refuses ranges outside the space or backwards', () => {
    expect(() => fromRanges('ipv4', [5, 4])).toThrow(RangeError);
    expect(() => fromRanges('ipv4', [0, 2 ** 32])).toThrow(RangeError);
    expect(() => fromRanges('ipv4', [-1, 3])).toThrow(RangeError);
    expect(() => fromRanges('ipv4', [1.5, 3])).toThrow(RangeError);
    expect(() => fromRanges('ipv6', [0n, 1n << 128n])).toThrow(RangeError);
  });

  it('covers the whole space with /0 and splits an odd range into its blocks', () => {
    expect(toCidrs(fromCidrs(['0.0.0.0/0']).v4)).toEqual(['0.0.0.0/0']);
    expect(toCidrs(fromCidrs(['::/0']).v6)).toEqual(['::/0']);
    const odd = fromRanges('ipv4', [parseCidr('10.0.0.1')!.start as number, 0x0a000006]);
    expect(toCidrs(odd)).toEqual(['10.0.0.1/32', '10.0.0.2/31', '10.0.0.4/31', '10.0.0.6/32']);
    expect(count(fromCidrs(['::/0']).v6)).toBe(1n << 128n);
    expect(count(fromCidrs(['0.0.0.0/0']).v4)).toBe(2 ** 32);
  });
});

describe('nftables elements', () => {
  it('uses the forms nft -j takes for interval sets', () => {
    const v4 = fromCidrs(['10.0.0.0/8', '192.0.2.7', '0.0.0.0/32', '255.255.255.255']).v4;
    const withRange = union(v4, fromRanges('ipv4', [0x0b000001, 0x0b000009]));
    expect(toNftElements(withRange)).toEqual([
      '0.0.0.0',
      { prefix: { addr: '10.0.0.0', len: 8 } },
      { range: ['11.0.0.1', '11.0.0.9'] },
      '192.0.2.7',
      '255.255.255.255',
    ]);
    const v6 = fromCidrs(['fc00::/7', '2001:db8::1', '2001:db8::5/128', '2001:db8::6/127']).v6;
    expect(toNftElements(v6)).toEqual([
      '2001:db8::1',
      { range: ['2001:db8::5', '2001:db8::7'] },
      { prefix: { addr: 'fc00::', len: 7 } },
    ]);
  });

  it('makes a named interval set of the family’s type, without elem when empty', () => {
    const sets = fromCidrs(['192.0.2.0/24']);
    expect(nftIntervalSet('direct4', sets.v4)).toEqual({
      set: {
        name: 'direct4',
        type: 'ipv4_addr',
        flags: ['interval'],
        elem: [{ prefix: { addr: '192.0.2.0', len: 24 } }],
      },
    });
    expect(nftIntervalSet('direct6', sets.v6)).toEqual({
      set: { name: 'direct6', type: 'ipv6_addr', flags: ['interval'] },
    });
  });
});
