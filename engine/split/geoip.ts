// The IP-to-country database of automatic split tunneling: the shipped CC0 dataset
// (@ip-location-db/geo-whois-asn-country) under the overrides of a --geoip-file.
import { parseAddress, type AddressOf, type Family } from './address-space.js';
import { checkCountry, countryCode } from './country-codes.js';
import { DATASET_PACKAGE, datasetAt, defaultDatasetDir, type Dataset } from './geoip-dataset.js';
import { layer, readOverrides, type Override, type OverrideLayer } from './geoip-overrides.js';
import { subtract, union, type SetOf } from './intervals.js';
import { collect, find, type Table } from './labelled-ranges.js';

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
