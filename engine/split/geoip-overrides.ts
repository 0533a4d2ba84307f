// A --geoip-file: `cidr,CC` lines that take precedence over the dataset, read and checked (every
// bad line reported), and flattened per family so that the longest prefix holds each address.
import { readFileSync } from 'node:fs';

import type { FieldError } from '../../contracts/index.js';
import { FerryError, errnoCode, type EngineErrorCode } from '../errors.js';
import {
  parseCidr,
  spaceOf,
  type Address,
  type AddressSpace,
  type Family,
} from './address-space.js';
import { COUNTRY } from './country-codes.js';
import type { IntervalSet } from './intervals.js';
import { collect, overlay, type Rows, type Table } from './labelled-ranges.js';

/** The codes of a refused or unreadable --geoip-file. */
export const GEOIP_FILE_INVALID: EngineErrorCode = 'geoip-file-invalid';
export const GEOIP_FILE_UNREADABLE: EngineErrorCode = 'geoip-file-unreadable';

/** Bad lines named in the message; the error's `errors` holds all of them. */
const BAD_LINES_SHOWN = 5;

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

export function readOverrides(file: string): Override[] {
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
export interface OverrideLayer<A extends Address> {
  /** The overrides of the family; the table's labels index them. */
  entries: Override[];
  table: Table<A>;
  /** Every address some override maps (whatever its country): what the dataset loses. */
  all: IntervalSet<A>;
}

export function layer<A extends Address>(
  family: Family,
  entries: readonly Override[],
): OverrideLayer<A> {
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
