// Split tunneling's side of a connect: the home country (configured, or the country of the
// address the service saw before connecting) and the sets the protection table steers with,
// from the offline IP-to-country data (and a --geoip-file's entries, which take precedence).
import type { ProtectionPolicy } from '../protection/firewall-policy.js';
import { directSet, PRIVATE_RANGES } from './direct-set.js';
import { loadGeoIp, type GeoIp } from './geoip.js';
import { emptySet, fromCidrs, rangeCount, subtract } from './intervals.js';
import { toNftElements } from './nft-elements.js';

export type SplitSets = NonNullable<ProtectionPolicy['split']>;

/** The private ranges, which the split routes around the tunnel and the kill switch holds back. */
const PRIVATE_V4 = fromCidrs(PRIVATE_RANGES).v4;

export interface SplitTunnelSource {
  /** The home country for the `home_country` setting (`auto`: `exitAddress`'s), null: unknown. */
  homeCountry(setting: string, exitAddress: string | null): Promise<string | null>;
  /**
   * The sets for a home country: routed around the tunnel = the country and the private ranges,
   * less `alwaysTunneled` (the tunnel's block, the resolver); the private ranges, which the kill
   * switch lets out only with allow_lan.
   */
  sets(country: string, alwaysTunneled: readonly string[]): Promise<SplitSets>;
  /** The country of an address (the engine's resolver's question: is an answer at home?). */
  countryOf(address: string): string | null;
}

/**
 * The split tunnel from the GeoIP data. IPv4 only: the tunnels carry IPv4, and IPv6 that is not
 * tunneled is blocked, the home country's included (design.md: no IPv6 leaves).
 */
export class GeoSplitTunnel implements SplitTunnelSource {
  #geo: GeoIp | null = null;
  #cache: { key: string; sets: SplitSets; ranges: number } | null = null;

  constructor(private readonly opts: { overridesFile?: string | undefined } = {}) {}

  /** The data, loaded on first use (a --geoip-file's mistakes are refused then, with the line). */
  private geo(): GeoIp {
    this.#geo ??= loadGeoIp({ overridesFile: this.opts.overridesFile });
    return this.#geo;
  }

  async homeCountry(setting: string, exitAddress: string | null): Promise<string | null> {
    if (setting !== 'auto') return setting;
    if (exitAddress === null) return null;
    return this.geo().countryOf(exitAddress);
  }

  countryOf(address: string): string | null {
    return this.geo().countryOf(address);
  }

  async sets(country: string, alwaysTunneled: readonly string[]): Promise<SplitSets> {
    const key = `${country} ${[...alwaysTunneled].sort().join(' ')}`;
    if (this.#cache?.key === key) return this.#cache.sets;
    const home = { v4: this.geo().ranges(country, 'ipv4'), v6: emptySet('ipv6') };
    const route = directSet({ home, lan: [], alwaysTunneled });
    const sets: SplitSets = {
      route: toNftElements(route.v4),
      private: toNftElements(PRIVATE_V4),
    };
    this.#cache = {
      key,
      sets,
      ranges: rangeCount(subtract(home.v4, fromCidrs(alwaysTunneled).v4)),
    };
    return sets;
  }

  /** What the data is, for diagnostics: its version, and the ranges of the last home country. */
  describe(): { dataset: string; overrides: string | null; homeRanges: number | null } {
    const info = this.geo().info();
    return {
      dataset: `${info.dataset.package}@${info.dataset.version}`,
      overrides: info.overrides?.file ?? null,
      homeRanges: this.#cache?.ranges ?? null,
    };
  }
}
