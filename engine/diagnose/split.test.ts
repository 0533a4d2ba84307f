// split from the protection status: by country (with the data's figures), home unknown, off, and
// auto while disconnected.
import { describe, expect, it } from 'vitest';
import { IDLE_PROTECTION, type ProtectionStatus } from '../../contracts/index.js';
import { checkSplit } from './split.js';

const protection = (p: Partial<ProtectionStatus>): ProtectionStatus => ({
  ...IDLE_PROTECTION,
  ...p,
});
const DATA = () => ({ dataset: '@ip-location-db/geo-whois-asn-country@2.3.1', homeRanges: 2310 });

describe('the split check', () => {
  it('is ok by country, with the home country, its ranges and the dataset', () => {
    expect(
      checkSplit({
        protection: protection({ split: 'by-country', home_country: 'JP' }),
        setting: 'auto',
        active: true,
        describe: DATA,
      }),
    ).toMatchObject({
      verdict: 'ok',
      summary:
        'only cross-border traffic goes through the tunnel (home JP, 2310 ranges, dataset @ip-location-db/geo-whois-asn-country@2.3.1)',
    });
  });

  it('warns when the home country is unknown, with the setting to give', () => {
    expect(
      checkSplit({
        protection: protection({ split: 'unavailable' }),
        setting: 'auto',
        active: true,
        describe: DATA,
      }),
    ).toMatchObject({ verdict: 'warning', fix: 'netcli config set home_country <code>' });
  });

  it('is ok when off, and says auto waits for the next connect', () => {
    expect(
      checkSplit({ protection: protection({}), setting: 'off', active: true, describe: DATA })
        .summary,
    ).toBe('off: everything goes through the tunnel');
    expect(
      checkSplit({
        protection: protection({}),
        setting: 'auto',
        active: false,
        describe: () => null,
      }).summary,
    ).toBe('auto: applies from the next connect');
  });
});
