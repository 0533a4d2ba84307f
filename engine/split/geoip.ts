// The IP-to-country database of automatic split tunneling: the shipped CC0 dataset
// (@ip-location-db/geo-whois-asn-country) under the overrides of a --geoip-file.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import type { FieldError } from '../../contracts/index.js';
import { FerryError, errnoCode, type EngineErrorCode } from '../errors.js';
import {
  fromRanges,
  parseAddress,
  parseCidr,
  spaceOf,
  subtract,
  union,
  type Address,
  type AddressOf,
  type AddressSpace,
  type Family,
  type IntervalSet,
  type SetOf,
} from './intervals.js';

export const DATASET_PACKAGE = '@ip-location-db/geo-whois-asn-country';
const DATASET_FILES: Record<Family, string> = {
  ipv4: 'geo-whois-asn-country-ipv4-num.csv',
  ipv6: 'geo-whois-asn-country-ipv6-num.csv',
};

/** The codes of a refused or unreadable --geoip-file. */
export const GEOIP_FILE_INVALID: EngineErrorCode = 'geoip-file-invalid';
export const GEOIP_FILE_UNREADABLE: EngineErrorCode = 'geoip-file-unreadable';

/** Bad lines named in the message; the error's `errors` holds all of them. */
const BAD_LINES_SHOWN = 5;

export interface GeoIpOptions {
  /** The directory holding the dataset's CSVs; default: the installed package's. */
  datasetDir?: string | undefined;
  /** A --geoip-file: `cidr,CC` lines that take precedence over the dataset. */
  overridesFile?: string | undefined;
}

/** Who answered a lookup: an override (with its line in the file) or the dataset. */
export type CountryAnswer =
  { country: string; source: 'override'; line: number } | { country: string; source: 'dataset' };

export interface GeoIpInfo {
  dataset: {
    package: string;
    /** The package's version: its date is the data's (2.3.YYYYMMDDHH). */
    version: string;
    /** Rows in the CSV, and the disjoint ranges they make; IPv6 null until first asked. */
    ipv4: { rows: number; ranges: number };
    ipv6: { rows: number; ranges: number } | null;
  };
  overrides: { file: string; ipv4: number; ipv6: number } | null;
}

/** The country of an address and the addresses of a country: overrides first, then the dataset. */
export interface GeoIp {
  /** The ISO 3166-1 alpha-2 code of the address's country; null when nothing knows it. */
  countryOf(ip: string): string | null;
  /** countryOf, with the source that answered (diagnostics). */
  lookup(ip: string): CountryAnswer | null;
  /** Every address whose countryOf is `country`, merged. */
  ranges<F extends Family>(country: string, family: F): SetOf<F>;
  info(): GeoIpInfo;
}

// --- countries as numbers (AA = 0 ... ZZ = 675), not strings -------------------------------------

const A = 65;

function countryIndex(code: string): number {
  return (code.charCodeAt(0) - A) * 26 + (code.charCodeAt(1) - A);
}

function countryCode(index: number): string {
  return String.fromCharCode(A + Math.floor(index / 26), A + (index % 26));
}

const COUNTRY = /^[A-Za-z]{2}$/;

function checkCountry(country: string): string {
  if (!COUNTRY.test(country))
    throw new RangeError(`not an ISO 3166-1 alpha-2 country code: ${JSON.stringify(country)}`);
  return country.toUpperCase();
}

// --- labelled ranges ----------------------------------------------------------------------------

/** Labelled ranges, one row per index, as read: they may overlap. */
interface Rows<A extends Address> {
  n: number;
  starts: ArrayLike<A>;
  ends: ArrayLike<A>;
  labels: ArrayLike<number>;
}

/** Disjoint labelled ranges in address order: what a lookup searches. */
interface Table<A extends Address> {
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
function overlay<A extends Address>(space: AddressSpace<A>, rows: Rows<A>): Table<A> {
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
function find<A extends Address>(table: Table<A>, address: A): number {
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
function collect<A extends Address>(
  family: Family,
  table: Table<A>,
  want: (label: number) => boolean,
): IntervalSet<A> {
  const bounds: A[] = [];
  for (let i = 0; i < table.starts.length; i++)
    if (want(table.labels[i]!)) bounds.push(table.starts[i]!, table.ends[i]!);
  return fromRanges(family as IntervalSet<A>['family'], bounds);
}

// --- the dataset ---------------------------------------------------------------------------------

/** A defect of the installed dataset (not the user's doing): it says which file and row. */
function corrupt(file: string, line: number, why: string): Error {
  return new Error(
    `the GeoIP dataset is damaged (${file}:${line}: ${why}); reinstall ${DATASET_PACKAGE}`,
  );
}

/**
 * The IPv4 CSV (`startInt,endInt,CC`), parsed from bytes: no string per line, ~40 ms for its
 * 334 000 rows where split and Number take several times that.
 */
function parseIpv4Csv(buf: Buffer, file: string): Rows<number> {
  let lines = 0;
  for (let i = 0; i < buf.length; i++) if (buf[i] === 10) lines++;
  if (buf.length > 0 && buf[buf.length - 1] !== 10) lines++;
  const starts = new Uint32Array(lines);
  const ends = new Uint32Array(lines);
  const labels = new Uint16Array(lines);
  let n = 0;
  let i = 0;
  const len = buf.length;
  for (let line = 1; i < len; line++) {
    let start = 0;
    let digits = 0;
    let c = 0;
    while (i < len && (c = buf[i]!) >= 48 && c <= 57 && digits < 11) {
      start = start * 10 + (c - 48);
      i++;
      digits++;
    }
    if (digits === 0 || buf[i] !== 44) throw corrupt(file, line, 'expected start,end,CC');
    i++;
    let end = 0;
    digits = 0;
    while (i < len && (c = buf[i]!) >= 48 && c <= 57 && digits < 11) {
      end = end * 10 + (c - 48);
      i++;
      digits++;
    }
    if (digits === 0 || buf[i] !== 44) throw corrupt(file, line, 'expected start,end,CC');
    i++;
    const c0 = buf[i]! - A;
    const c1 = buf[i + 1]! - A;
    if (!(c0 >= 0 && c0 < 26 && c1 >= 0 && c1 < 26))
      throw corrupt(file, line, 'the country is not two capital letters');
    i += 2;
    if (buf[i] === 13) i++;
    if (i < len && buf[i] !== 10) throw corrupt(file, line, 'extra text after the country');
    i++;
    if (start > end || end > 0xffffffff) throw corrupt(file, line, 'not an IPv4 range');
    starts[n] = start;
    ends[n] = end;
    labels[n] = c0 * 26 + c1;
    n++;
  }
  return { n, starts, ends, labels };
}

/**
 * Whether text[from, to) is a plain decimal number that BigInt will read as such: no sign,
 * space or 0x/0o/0b prefix (BigInt accepts those), at most 39 digits. Interior junk makes BigInt
 * throw, so the ends are enough.
 */
function plainDecimal(text: string, from: number, to: number): boolean {
  const len = to - from;
  if (len < 1 || len > 39) return false;
  const first = text.charCodeAt(from);
  const last = text.charCodeAt(to - 1);
  return (first > 48 || len === 1) && first >= 48 && first <= 57 && last >= 48 && last <= 57;
}

const MAX_128 = (1n << 128n) - 1n;

/** The IPv6 CSV (`startInt,endInt,CC` in decimal): BigInt parses the 39-digit numbers. */
function parseIpv6Csv(text: string, file: string): Rows<bigint> {
  const starts: bigint[] = [];
  const ends: bigint[] = [];
  const labels: number[] = [];
  let line = 0;
  let pos = 0;
  while (pos < text.length) {
    line++;
    let eol = text.indexOf('\n', pos);
    if (eol < 0) eol = text.length;
    const lineEnd = text.charCodeAt(eol - 1) === 13 ? eol - 1 : eol;
    const comma1 = text.indexOf(',', pos);
    const comma2 = comma1 < 0 ? -1 : text.indexOf(',', comma1 + 1);
    if (comma1 < 0 || comma2 < 0 || comma2 >= lineEnd)
      throw corrupt(file, line, 'expected start,end,CC');
    if (!plainDecimal(text, pos, comma1) || !plainDecimal(text, comma1 + 1, comma2))
      throw corrupt(file, line, 'not an IPv6 range');
    let start: bigint;
    let end: bigint;
    try {
      start = BigInt(text.slice(pos, comma1));
      end = BigInt(text.slice(comma1 + 1, comma2));
    } catch {
      throw corrupt(file, line, 'not an IPv6 range');
    }
    if (start > end || end > MAX_128) throw corrupt(file, line, 'not an IPv6 range');
    const first = text.charCodeAt(comma2 + 1) - A;
    const second = text.charCodeAt(comma2 + 2) - A;
    if (lineEnd - comma2 !== 3 || !(first >= 0 && first < 26 && second >= 0 && second < 26))
      throw corrupt(file, line, 'the country is not two capital letters');
    starts.push(start);
    ends.push(end);
    labels.push(first * 26 + second);
    pos = eol + 1;
  }
  return { n: starts.length, starts, ends, labels };
}

interface FamilyData<A extends Address> {
  rows: number;
  table: Table<A>;
  /** The dataset's ranges per country, merged: the engine asks again on every change. */
  byCountry: Map<string, IntervalSet<A>>;
}

/** One dataset directory, parsed once per process (IPv6 only when first asked). */
class Dataset {
  readonly version: string;
  readonly ipv4: FamilyData<number>;
  private ipv6Data: FamilyData<bigint> | null = null;

  constructor(readonly dir: string) {
    this.version = readVersion(dir);
    this.ipv4 = this.load('ipv4', (file) => parseIpv4Csv(readFileSync(file), file));
  }

  get ipv6Loaded(): FamilyData<bigint> | null {
    return this.ipv6Data;
  }

  family<F extends Family>(family: F): FamilyData<AddressOf<F>> {
    if (family === 'ipv4') return this.ipv4 as FamilyData<AddressOf<F>>;
    this.ipv6Data ??= this.load('ipv6', (file) => parseIpv6Csv(readFileSync(file, 'latin1'), file));
    return this.ipv6Data as FamilyData<AddressOf<F>>;
  }

  ranges<F extends Family>(country: string, family: F): SetOf<F> {
    const data = this.family(family);
    let set = data.byCountry.get(country);
    if (!set) {
      const index = countryIndex(country);
      set = collect(family, data.table, (label) => label === index);
      data.byCountry.set(country, set);
    }
    return set as SetOf<F>;
  }

  private load<A extends Address>(family: Family, parse: (file: string) => Rows<A>): FamilyData<A> {
    const file = path.join(this.dir, DATASET_FILES[family]);
    let rows: Rows<A>;
    try {
      rows = parse(file);
    } catch (e) {
      if (errnoCode(e) === undefined) throw e;
      throw new Error(`the GeoIP dataset cannot be read (${file}): reinstall ${DATASET_PACKAGE}`, {
        cause: e,
      });
    }
    const space = spaceOf(family) as unknown as AddressSpace<A>;
    return { rows: rows.n, table: overlay(space, rows), byCountry: new Map() };
  }
}

function readVersion(dir: string): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    // A dataset directory of the tests or a copy without its package.json.
    return 'unknown';
  }
}

const datasets = new Map<string, Dataset>();

function defaultDatasetDir(): string {
  try {
    return path.dirname(createRequire(import.meta.url).resolve(`${DATASET_PACKAGE}/package.json`));
  } catch (e) {
    throw new Error(`the GeoIP dataset ${DATASET_PACKAGE} is not installed (npm ci)`, {
      cause: e,
    });
  }
}

function datasetAt(dir: string): Dataset {
  const key = path.resolve(dir);
  let d = datasets.get(key);
  if (!d) {
    d = new Dataset(key);
    datasets.set(key, d);
  }
  return d;
}

// --- the overrides -------------------------------------------------------------------------------

export interface Override {
  family: Family;
  start: Address;
  end: Address;
  /** The prefix length (32 or 128 for an address alone). */
  len: number;
  country: string;
  /** 1-based line in the file. */
  line: number;
}

/**
 * The lines of a --geoip-file: `cidr,CC` (an IPv4 or IPv6 network, or an address alone; an ISO
 * 3166-1 alpha-2 code in any case), `#` comments, blank lines. Every bad line is reported, by
 * number, in one FerryError: a line skipped would send a user's traffic the wrong way unseen.
 */
export function parseOverrides(text: string, file: string): Override[] {
  const out: Override[] = [];
  const bad: { line: number; message: string }[] = [];
  const seen = new Map<string, Override>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const hash = lines[i]!.indexOf('#');
    const content = (hash < 0 ? lines[i]! : lines[i]!.slice(0, hash)).trim();
    if (content === '') continue;
    const refuse = (message: string) => bad.push({ line, message });
    const fields = content.split(',').map((f) => f.trim());
    if (fields.length !== 2) {
      refuse('expected "cidr,country", e.g. 203.0.113.0/24,DE');
      continue;
    }
    const [cidrText, countryText] = fields as [string, string];
    const cidr = parseCidr(cidrText);
    if (!cidr) {
      refuse('not an IPv4 or IPv6 network (CIDR) or address');
      continue;
    }
    if (cidr.address !== cidr.start) {
      refuse('host bits set beyond the prefix: give the network’s own address (10.20.0.0/16)');
      continue;
    }
    if (!COUNTRY.test(countryText)) {
      refuse('the country is an ISO 3166-1 alpha-2 code, e.g. DE');
      continue;
    }
    const entry: Override = {
      family: cidr.family,
      start: cidr.start,
      end: cidr.end,
      len: cidr.len,
      country: countryText.toUpperCase(),
      line,
    };
    const key = `${cidr.family} ${cidr.start} ${cidr.len}`;
    const before = seen.get(key);
    if (before && before.country !== entry.country) {
      refuse(`the same network is ${before.country} on line ${before.line}`);
      continue;
    }
    if (before) continue;
    seen.set(key, entry);
    out.push(entry);
  }
  if (bad.length > 0) {
    const shown = bad.slice(0, BAD_LINES_SHOWN).map((b) => `${file}:${b.line}: ${b.message}`);
    const more = bad.length > BAD_LINES_SHOWN ? ` (and ${bad.length - BAD_LINES_SHOWN} more)` : '';
    const errors: FieldError[] = bad.map((b) => ({ field: `line ${b.line}`, message: b.message }));
    throw new FerryError(GEOIP_FILE_INVALID, `invalid GeoIP file: ${shown.join('; ')}${more}`, {
      errors,
    });
  }
  return out;
}

function readOverrides(file: string): Override[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new FerryError(
      GEOIP_FILE_UNREADABLE,
      `the GeoIP file ${file} cannot be read (${errnoCode(e) ?? 'error'})`,
      { cause: e },
    );
  }
  return parseOverrides(text, file);
}

/** The overrides of one family, flattened so that the longest prefix holds each address. */
interface OverrideLayer<A extends Address> {
  /** The overrides of the family; the table's labels index them. */
  entries: Override[];
  table: Table<A>;
  /** Every address some override maps (whatever its country): what the dataset loses. */
  all: IntervalSet<A>;
}

function layer<A extends Address>(family: Family, entries: readonly Override[]): OverrideLayer<A> {
  const mine = entries.filter((e) => e.family === family);
  const rows: Rows<A> = {
    n: mine.length,
    starts: mine.map((e) => e.start as A),
    ends: mine.map((e) => e.end as A),
    labels: mine.map((_, i) => i),
  };
  const space = spaceOf(family) as unknown as AddressSpace<A>;
  const table = overlay(space, rows);
  return { entries: mine, table, all: collect<A>(family, table, () => true) };
}

// --- the database --------------------------------------------------------------------------------

class GeoIpDatabase implements GeoIp {
  private readonly layers: { ipv4: OverrideLayer<number>; ipv6: OverrideLayer<bigint> };

  constructor(
    private readonly dataset: Dataset,
    overrides: readonly Override[],
    private readonly overridesFile: string | undefined,
  ) {
    this.layers = { ipv4: layer('ipv4', overrides), ipv6: layer('ipv6', overrides) };
  }

  countryOf(ip: string): string | null {
    return this.lookup(ip)?.country ?? null;
  }

  lookup(ip: string): CountryAnswer | null {
    let parsed = parseAddress(ip);
    if (!parsed) throw new TypeError('not an IPv4 or IPv6 address');
    // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is that IPv4 host.
    if (parsed.family === 'ipv6' && parsed.value >> 32n === 0xffffn)
      parsed = { family: 'ipv4', value: Number(parsed.value & 0xffffffffn) };
    return parsed.family === 'ipv4'
      ? this.answer('ipv4', parsed.value)
      : this.answer('ipv6', parsed.value);
  }

  private answer<F extends Family>(family: F, address: AddressOf<F>): CountryAnswer | null {
    const layer = this.layers[family] as OverrideLayer<AddressOf<F>>;
    const o = find(layer.table, address);
    if (o >= 0) {
      const entry = layer.entries[layer.table.labels[o]!]!;
      return { country: entry.country, source: 'override', line: entry.line };
    }
    const table = this.dataset.family(family).table as Table<AddressOf<F>>;
    const d = find(table, address);
    return d >= 0 ? { country: countryCode(table.labels[d]!), source: 'dataset' } : null;
  }

  ranges<F extends Family>(country: string, family: F): SetOf<F> {
    const cc = checkCountry(country);
    const layer = this.layers[family] as unknown as OverrideLayer<AddressOf<F>>;
    const dataset = this.dataset.ranges(cc, family);
    if (layer.entries.length === 0) return dataset;
    const own = collect<AddressOf<F>>(family, layer.table, (i) => layer.entries[i]!.country === cc);
    return union(subtract(dataset, layer.all), own) as SetOf<F>;
  }

  info(): GeoIpInfo {
    const v6 = this.dataset.ipv6Loaded;
    return {
      dataset: {
        package: DATASET_PACKAGE,
        version: this.dataset.version,
        ipv4: { rows: this.dataset.ipv4.rows, ranges: this.dataset.ipv4.table.starts.length },
        ipv6: v6 ? { rows: v6.rows, ranges: v6.table.starts.length } : null,
      },
      overrides:
        this.overridesFile === undefined
          ? null
          : {
              file: this.overridesFile,
              ipv4: this.layers.ipv4.entries.length,
              ipv6: this.layers.ipv6.entries.length,
            },
    };
  }
}

/**
 * The database: the dataset (parsed once per process and directory; IPv6 on its first
 * question, read synchronously then, ~0.2 s) under the overrides file, read on every call so
 * that an edit takes effect at the next load. A bad or unreadable overrides file is a
 * FerryError (GEOIP_FILE_INVALID, GEOIP_FILE_UNREADABLE); a missing or damaged dataset is a
 * broken installation and throws a plain Error.
 */
export function loadGeoIp(opts: GeoIpOptions = {}): GeoIp {
  const overrides = opts.overridesFile === undefined ? [] : readOverrides(opts.overridesFile);
  const dataset = datasetAt(opts.datasetDir ?? defaultDatasetDir());
  return new GeoIpDatabase(dataset, overrides, opts.overridesFile);
}
