// The shipped IP-to-country dataset (@ip-location-db/geo-whois-asn-country, CC0): its CSVs
// parsed into labelled tables, once per process and directory (IPv6 when first asked).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { errnoCode } from '../errors.js';
import {
  spaceOf,
  type Address,
  type AddressOf,
  type AddressSpace,
  type Family,
} from './address-space.js';
import { CAPITAL_A, countryIndex } from './country-codes.js';
import type { IntervalSet, SetOf } from './intervals.js';
import { collect, overlay, type Rows, type Table } from './labelled-ranges.js';

export const DATASET_PACKAGE = '@ip-location-db/geo-whois-asn-country';
const DATASET_FILES: Record<Family, string> = {
  ipv4: 'geo-whois-asn-country-ipv4-num.csv',
  ipv6: 'geo-whois-asn-country-ipv6-num.csv',
};

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
    const c0 = buf[i]! - CAPITAL_A;
    const c1 = buf[i + 1]! - CAPITAL_A;
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
    const first = text.charCodeAt(comma2 + 1) - CAPITAL_A;
    const second = text.charCodeAt(comma2 + 2) - CAPITAL_A;
    if (lineEnd - comma2 !== 3 || !(first >= 0 && first < 26 && second >= 0 && second < 26))
      throw corrupt(file, line, 'the country is not two capital letters');
    starts.push(start);
    ends.push(end);
    labels.push(first * 26 + second);
    pos = eol + 1;
  }
  return { n: starts.length, starts, ends, labels };
}

export interface FamilyData<A extends Address> {
  rows: number;
  table: Table<A>;
  /** The dataset's ranges per country, merged: the engine asks again on every change. */
  byCountry: Map<string, IntervalSet<A>>;
}

/** One dataset directory, parsed once per process (IPv6 only when first asked). */
export class Dataset {
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

export function defaultDatasetDir(): string {
  try {
    return path.dirname(createRequire(import.meta.url).resolve(`${DATASET_PACKAGE}/package.json`));
  } catch (e) {
    throw new Error(`the GeoIP dataset ${DATASET_PACKAGE} is not installed (npm ci)`, {
      cause: e,
    });
  }
}

export function datasetAt(dir: string): Dataset {
  const key = path.resolve(dir);
  let d = datasets.get(key);
  if (!d) {
    d = new Dataset(key);
    datasets.set(key, d);
  }
  return d;
}
