// The GeoIP database: the dataset's rows (nested and crossing ones too), the overrides of a
// --geoip-file taking precedence (lookups and ranges agreeing), bad files refused by line, and
// real answers from the shipped dataset.
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FerryError } from '../errors.js';
import { formatAddress, parseAddress, parseCidr } from './address-space.js';
import { loadGeoIp } from './geoip.js';
import { GEOIP_FILE_INVALID, GEOIP_FILE_UNREADABLE, parseOverrides } from './geoip-overrides.js';
import { contains, toCidrs } from './intervals.js';

const v4 = (ip: string) => parseAddress(ip)!.value as number;
const v6 = (ip: string) => (parseAddress(ip)!.value as bigint).toString();

/**
 * A dataset in the package's layout, with the oddities of the real one: two rows that start
 * together, the wider last; a row nested in another (DE holding one address of BE, the rest of
 * it repeated as DE); two rows that cross.
 */
const FIXTURE_V4 = [
  [v4('45.0.0.0'), v4('45.0.0.31'), 'MX'],
  [v4('45.0.0.0'), v4('45.0.0.79'), 'US'],
  [v4('192.0.2.0'), v4('192.0.2.127'), 'FR'],
  [v4('192.0.2.64'), v4('192.0.2.255'), 'IT'],
  [v4('198.51.100.0'), v4('198.51.100.255'), 'DE'],
  [v4('198.51.100.15'), v4('198.51.100.15'), 'BE'],
  [v4('198.51.100.16'), v4('198.51.100.255'), 'DE'],
  [v4('203.0.113.0'), v4('203.0.113.255'), 'US'],
];
const FIXTURE_V6 = [
  [v6('2001:db8::'), v6('2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'), 'JP'],
  [v6('2001:db8:1::'), v6('2001:db8:1:ffff:ffff:ffff:ffff:ffff'), 'KR'],
];

let dir: string;
let datasetDir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ferry-geoip-'));
  datasetDir = path.join(dir, 'dataset');
  writeDataset(datasetDir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeDataset(at: string, v4Rows = FIXTURE_V4.map((r) => r.join(',')).join('\n')): void {
  mkdirSync(at, { recursive: true });
  writeFileSync(path.join(at, 'package.json'), JSON.stringify({ version: '9.9.9' }));
  writeFileSync(path.join(at, 'geo-whois-asn-country-ipv4-num.csv'), `${v4Rows}\n`);
  writeFileSync(
    path.join(at, 'geo-whois-asn-country-ipv6-num.csv'),
    `${FIXTURE_V6.map((r) => r.join(',')).join('\n')}\n`,
  );
}

function overridesFile(text: string): string {
  const file = path.join(dir, 'geoip.csv');
  writeFileSync(file, text);
  return file;
}

function refusal(f: () => unknown): FerryError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(FerryError);
    return e as FerryError;
  }
  throw new Error('expected a FerryError');
}

describe('the dataset', () => {
  it('answers by range: a nested row wins in its parent, the later of two crossing rows', () => {
    const geo = loadGeoIp({ datasetDir });
    expect(geo.countryOf('203.0.113.9')).toBe('US');
    expect(geo.countryOf('198.51.100.14')).toBe('DE');
    expect(geo.countryOf('198.51.100.15')).toBe('BE');
    expect(geo.countryOf('198.51.100.16')).toBe('DE');
    expect(geo.countryOf('192.0.2.63')).toBe('FR');
    expect(geo.countryOf('192.0.2.64')).toBe('IT');
    expect(geo.countryOf('192.0.2.200')).toBe('IT');
    expect(geo.countryOf('45.0.0.31')).toBe('MX');
    expect(geo.countryOf('45.0.0.32')).toBe('US');
    expect(geo.countryOf('45.0.0.80')).toBeNull();
    expect(geo.countryOf('8.8.8.8')).toBeNull();
    expect(geo.lookup('203.0.113.9')).toEqual({ country: 'US', source: 'dataset' });
    // An IPv4-mapped IPv6 address is its IPv4 host.
    expect(geo.countryOf('::ffff:203.0.113.9')).toBe('US');
  });

  it('gives a country’s ranges merged, without what a nested row took', () => {
    const geo = loadGeoIp({ datasetDir });
    expect(toCidrs(geo.ranges('de', 'ipv4'))).toEqual([
      '198.51.100.0/29',
      '198.51.100.8/30',
      '198.51.100.12/31',
      '198.51.100.14/32',
      '198.51.100.16/28',
      '198.51.100.32/27',
      '198.51.100.64/26',
      '198.51.100.128/25',
    ]);
    expect(toCidrs(geo.ranges('FR', 'ipv4'))).toEqual(['192.0.2.0/26']);
    expect(toCidrs(geo.ranges('KR', 'ipv6'))).toEqual(['2001:db8:1::/48']);
    expect(geo.ranges('JP', 'ipv6').bounds).toHaveLength(4);
    expect(geo.ranges('ZZ', 'ipv4').bounds).toEqual([]);
    expect(() => geo.ranges('USA', 'ipv4')).toThrow(RangeError);
  });

  it('reads IPv6 only when first asked, and says what it loaded', () => {
    const geo = loadGeoIp({ datasetDir });
    expect(geo.info()).toEqual({
      dataset: {
        package: '@ip-location-db/geo-whois-asn-country',
        version: '9.9.9',
        ipv4: { rows: 8, ranges: 8 },
        ipv6: null,
      },
      overrides: null,
    });
    expect(geo.countryOf('2001:db8:1::1')).toBe('KR');
    expect(geo.countryOf('2001:db8:2::1')).toBe('JP');
    expect(geo.info().dataset.ipv6).toEqual({ rows: 2, ranges: 3 });
  });

  it('refuses an address that is not one (a caller’s bug)', () => {
    const geo = loadGeoIp({ datasetDir });
    expect(() => geo.countryOf('203.0.113')).toThrow(TypeError);
  });

  it('says which file and row of a damaged dataset is wrong', () => {
    const damaged = path.join(dir, 'damaged');
    writeDataset(damaged, '1,2,US\n3,x,DE');
    expect(() => loadGeoIp({ datasetDir: damaged })).toThrow(
      /geo-whois-asn-country-ipv4-num\.csv:2: expected start,end,CC/,
    );
    const damaged6 = path.join(dir, 'damaged6');
    writeDataset(damaged6);
    writeFileSync(
      path.join(damaged6, 'geo-whois-asn-country-ipv6-num.csv'),
      '1,2,JP\n0x10,20,US\n',
    );
    const geo = loadGeoIp({ datasetDir: damaged6 });
    expect(() => geo.countryOf('::1')).toThrow(
      /geo-whois-asn-country-ipv6-num\.csv:2: not an IPv6 range/,
    );
    writeFileSync(path.join(damaged6, 'geo-whois-asn-country-ipv6-num.csv'), '1,2,JPN\n');
    expect(() => geo.countryOf('::1')).toThrow(/ipv6-num\.csv:1: the country is not two capital/);
    // A failed load is not kept: the next question reads the file again.
    writeFileSync(path.join(damaged6, 'geo-whois-asn-country-ipv6-num.csv'), '1,2,JP\n');
    expect(geo.countryOf('::1')).toBe('JP');
    expect(() => loadGeoIp({ datasetDir: path.join(dir, 'nowhere') })).toThrow(
      /GeoIP dataset cannot be read/,
    );
  });
});

describe('overrides', () => {
  it('take precedence: carved out of the dataset’s country and added to their own', () => {
    const file = overridesFile(
      [
        '# the test network',
        '203.0.113.128/25,de',
        '',
        '198.51.100.15,US   # one address, in a nested row of the dataset',
        '2001:db8:1:2::/64 , fr',
      ].join('\n'),
    );
    const geo = loadGeoIp({ datasetDir, overridesFile: file });
    expect(geo.lookup('203.0.113.200')).toEqual({ country: 'DE', source: 'override', line: 2 });
    expect(geo.lookup('203.0.113.100')).toEqual({ country: 'US', source: 'dataset' });
    expect(geo.countryOf('198.51.100.15')).toBe('US');
    expect(geo.countryOf('2001:db8:1:2::99')).toBe('FR');
    expect(geo.countryOf('2001:db8:1:3::99')).toBe('KR');

    expect(toCidrs(geo.ranges('US', 'ipv4'))).toEqual([
      '45.0.0.32/27',
      '45.0.0.64/28',
      '198.51.100.15/32',
      '203.0.113.0/25',
    ]);
    const de = geo.ranges('DE', 'ipv4');
    expect(contains(de, v4('203.0.113.128'))).toBe(true);
    expect(contains(de, v4('198.51.100.15'))).toBe(false);
    expect(contains(de, v4('198.51.100.16'))).toBe(true);
    expect(geo.ranges('BE', 'ipv4').bounds).toEqual([]);
    expect(toCidrs(geo.ranges('FR', 'ipv6'))).toEqual(['2001:db8:1:2::/64']);
    const kr = geo.ranges('KR', 'ipv6');
    expect(contains(kr, parseAddress('2001:db8:1:2::1')!.value as bigint)).toBe(false);
    expect(contains(kr, parseAddress('2001:db8:1:3::1')!.value as bigint)).toBe(true);
    expect(geo.info().overrides).toEqual({ file, ipv4: 2, ipv6: 1 });
  });

  it('answer from the longest matching prefix', () => {
    const file = overridesFile('10.1.2.3,ES\n10.0.0.0/8,FR\n10.1.0.0/16,IT\n');
    const geo = loadGeoIp({ datasetDir, overridesFile: file });
    expect(geo.countryOf('10.9.9.9')).toBe('FR');
    expect(geo.countryOf('10.1.9.9')).toBe('IT');
    expect(geo.lookup('10.1.2.3')).toEqual({ country: 'ES', source: 'override', line: 1 });
    expect(toCidrs(geo.ranges('ES', 'ipv4'))).toEqual(['10.1.2.3/32']);
    expect(contains(geo.ranges('FR', 'ipv4'), v4('10.1.0.0'))).toBe(false);
    expect(contains(geo.ranges('IT', 'ipv4'), v4('10.1.2.3'))).toBe(false);
  });

  it('keep lookups and ranges in agreement for any overrides', () => {
    const countries = ['US', 'DE', 'BE', 'FR'] as const;
    // Prefixes inside and around the dataset's 198.51.100.0/24, each with one country.
    const override = fc
      .tuple(
        fc.integer({ min: 0, max: 511 }),
        fc.integer({ min: 22, max: 32 }),
        fc.constantFrom(...countries),
      )
      .map(([host, len, cc]) => {
        const size = 2 ** (32 - len);
        const start = v4('198.51.100.0') - 256 + host;
        return { start: start - (start % size), len, cc };
      });
    fc.assert(
      fc.property(
        fc.uniqueArray(override, { selector: (o) => `${o.start}/${o.len}`, maxLength: 6 }),
        (overrides) => {
          const lines = overrides.map((o) => `${formatAddress('ipv4', o.start)}/${o.len},${o.cc}`);
          const geo = loadGeoIp({ datasetDir, overridesFile: overridesFile(lines.join('\n')) });
          const sets = countries.map((cc) => geo.ranges(cc, 'ipv4'));
          for (let a = v4('198.51.99.0'); a <= v4('198.51.101.255'); a++) {
            const ip = formatAddress('ipv4', a);
            const country = geo.countryOf(ip);
            countries.forEach((cc, i) => expect(contains(sets[i]!, a)).toBe(country === cc));
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('refuse a bad file as a whole, naming the file and every bad line', () => {
    const file = overridesFile(
      [
        '203.0.113.0/24,DE',
        '203.0.113.0/24',
        'not-a-network,DE',
        '10.1.2.3/8,DE',
        '192.0.2.0/24,DEU',
        '203.0.113.0/24,FR',
        '192.0.2.0/24,DE,extra',
        '127.1,US',
        '203.0.113.0/24,de',
      ].join('\r\n'),
    );
    const e = refusal(() => loadGeoIp({ datasetDir, overridesFile: file }));
    expect(e.code).toBe(GEOIP_FILE_INVALID);
    expect(e.message).toContain(`${file}:2: expected "cidr,country"`);
    expect(e.message).toContain(`${file}:3: not an IPv4 or IPv6 network`);
    expect(e.message).toContain(`${file}:4: host bits set`);
    expect(e.message).toContain(`${file}:5: the country is an ISO 3166-1 alpha-2 code`);
    expect(e.message).toContain(`${file}:6: the same network is DE on line 1`);
    expect(e.message).toContain('(and 2 more)');
    expect(e.errors?.map((f) => f.field)).toEqual([
      'line 2',
      'line 3',
      'line 4',
      'line 5',
      'line 6',
      'line 7',
      'line 8',
    ]);
  });

  it('parse on their own, for callers that hold the text', () => {
    expect(parseOverrides('# nothing yet\n\n   \n', 'x.csv')).toEqual([]);
    expect(parseOverrides('2001:db8::/32,jp', 'x.csv')).toEqual([
      {
        family: 'ipv6',
        start: parseCidr('2001:db8::')!.start,
        end: parseCidr('2001:db8::/32')!.end,
        len: 32,
        country: 'JP',
        line: 1,
      },
    ]);
  });

  it('that cannot be read say so, with their own code', () => {
    const e = refusal(() =>
      loadGeoIp({ datasetDir, overridesFile: path.join(dir, 'missing.csv') }),
    );
    expect(e.code).toBe(GEOIP_FILE_UNREADABLE);
    expect(e.message).toContain('missing.csv');
    expect(e.message).toContain('ENOENT');
  });
});

describe('the shipped dataset', () => {
  const pkgDir = path.dirname(
    createRequire(import.meta.url).resolve('@ip-location-db/geo-whois-asn-country/package.json'),
  );

  // What its CSVs say (checked with grep when this was written): Cloudflare's and Google's
  // resolvers, which keep their registrations.
  it('knows well-known addresses of both families', () => {
    const geo = loadGeoIp();
    expect(geo.lookup('1.1.1.1')).toEqual({ country: 'AU', source: 'dataset' });
    expect(geo.countryOf('8.8.8.8')).toBe('US');
    expect(geo.countryOf('2001:4860:4860::8888')).toBe('US');
    expect(contains(geo.ranges('US', 'ipv4'), v4('8.8.8.8'))).toBe(true);
    expect(contains(geo.ranges('US', 'ipv4'), v4('1.1.1.1'))).toBe(false);
  });

  it('reports the package version and its size', () => {
    const { version } = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as {
      version: string;
    };
    const info = loadGeoIp().info();
    expect(info.dataset.version).toBe(version);
    expect(info.dataset.ipv4.rows).toBeGreaterThan(100_000);
    expect(info.dataset.ipv4.ranges).toBeGreaterThan(100_000);
  });
});
