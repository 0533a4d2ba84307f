// Labelled address ranges (a country per range): rows as read, which may overlap, flattened into
// a table of disjoint ranges that a lookup searches, and the addresses of the labels one wants.
import type { Address, AddressSpace, Family } from './address-space.js';
import { fromRanges, type IntervalSet } from './intervals.js';

/** Labelled ranges, one row per index, as read: they may overlap. */
export interface Rows<A extends Address> {
  n: number;
  starts: ArrayLike<A>;
  ends: ArrayLike<A>;
  labels: ArrayLike<number>;
}

/** Disjoint labelled ranges in address order: what a lookup searches. */
export interface Table<A extends Address> {
  starts: ArrayLike<A>;
  ends: ArrayLike<A>;
  labels: ArrayLike<number>;
}

/**
 * The order overlay walks the rows in: by start, and of rows that start together the wider
 * first (the later of two equal ones last); null when that is the order they are in. The
 * dataset is sorted by start but not always by width within a start (two rows of 334 000), so
 * only such runs are sorted, not the whole table.
 */
function rowOrder<A extends Address>({ n, starts, ends }: Rows<A>): ArrayLike<number> | null {
  const byStartThenWidth = (x: number, y: number) => {
    const sx = starts[x]!;
    const sy = starts[y]!;
    if (sx !== sy) return sx < sy ? -1 : 1;
    const ex = ends[x]!;
    const ey = ends[y]!;
    return ex !== ey ? (ex > ey ? -1 : 1) : x - y;
  };
  let order: number[] | null = null;
  for (let i = 1; i < n; i++) {
    if (starts[i]! < starts[i - 1]!)
      return Array.from({ length: n }, (_, k) => k).sort(byStartThenWidth);
    if (starts[i] === starts[i - 1] && ends[i]! > ends[i - 1]!) {
      order ??= Array.from({ length: n }, (_, k) => k);
      let from = i - 1;
      while (from > 0 && starts[from - 1] === starts[i]) from--;
      let to = i + 1;
      while (to < n && starts[to] === starts[i]) to++;
      const run = order.slice(from, to).sort(byStartThenWidth);
      for (let k = 0; k < run.length; k++) order[from + k] = run[k]!;
      i = to - 1;
    }
  }
  return order;
}

/**
 * Flattens overlapping rows into disjoint ones. Where rows overlap, the one that starts later
 * wins, and of two that start together the narrower: for nested ranges that is the innermost,
 * as for prefixes the longest. The dataset needs this too: some of its rows nest (a block of DE
 * holding one address of BE, the rest of it repeated as DE), and the inner row is the
 * specific one. Touching rows with the same label become one.
 */
export function overlay<A extends Address>(space: AddressSpace<A>, rows: Rows<A>): Table<A> {
  const { n, starts, ends, labels } = rows;
  const order = rowOrder(rows);
  // Every piece ends where a row ends or just before one starts: 2n pieces at most.
  const capacity = 2 * n + 1;
  const outStarts = column<A>(space.family, capacity);
  const outEnds = column<A>(space.family, capacity);
  const outLabels = new Int32Array(capacity);
  let m = 0;

  // The rows that hold the cursor, innermost on top; rows that ended leave when they surface.
  const stack = new Int32Array(n);
  let depth = 0;
  let cursor = space.max;
  const beyond = space.next(space.max);
  for (let r = 0; r <= n; r++) {
    const row = r < n ? (order ? order[r]! : r) : -1;
    const next = row >= 0 ? starts[row]! : beyond;
    while (depth > 0 && cursor < next) {
      const top = stack[depth - 1]!;
      const end = ends[top]!;
      if (end < cursor) {
        depth--;
        continue;
      }
      const until = end < next ? end : space.prev(next);
      const label = labels[top]!;
      if (m > 0 && outLabels[m - 1] === label && space.next(outEnds[m - 1]!) === cursor)
        outEnds[m - 1] = until;
      else {
        outStarts[m] = cursor;
        outEnds[m] = until;
        outLabels[m] = label;
        m++;
      }
      cursor = space.next(until);
      if (end === until) depth--;
    }
    if (row < 0) break;
    stack[depth++] = row;
    cursor = next;
  }
  return {
    starts: outStarts.slice(0, m),
    ends: outEnds.slice(0, m),
    labels: outLabels.slice(0, m),
  };
}

/** A writable column of addresses: unboxed 32-bit words for IPv4, bigints for IPv6. */
interface Column<A extends Address> {
  [i: number]: A;
  readonly length: number;
  slice(start: number, end: number): Column<A>;
}

function column<A extends Address>(family: Family, length: number): Column<A> {
  return (family === 'ipv4'
    ? new Uint32Array(length)
    : new Array<bigint>(length).fill(0n)) as unknown as Column<A>;
}

/** The row of the table that holds the address, or -1. */
export function find<A extends Address>(table: Table<A>, address: A): number {
  const { starts, ends } = table;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! <= address) lo = mid + 1;
    else hi = mid - 1;
  }
  return hi >= 0 && address <= ends[hi]! ? hi : -1;
}

/** The addresses of the rows whose label passes `want`, merged. */
export function collect<A extends Address>(
  family: Family,
  table: Table<A>,
  want: (label: number) => boolean,
): IntervalSet<A> {
  const bounds: A[] = [];
  for (let i = 0; i < table.starts.length; i++)
    if (want(table.labels[i]!)) bounds.push(table.starts[i]!, table.ends[i]!);
  return fromRanges(family as IntervalSet<A>['family'], bounds);
}
