// Split tunneling's side of a connect: the home country (configured, or the country of the
// address the service saw before connecting) and the sets the protection table steers with.
import type { ProtectionPolicy } from './firewall-policy.js';

export type SplitSets = NonNullable<ProtectionPolicy['split']>;

export interface SplitTunnelSource {
  /** The home country for the `home_country` setting (`auto`: `exitAddress`'s), null: unknown. */
  homeCountry(setting: string, exitAddress: string | null): Promise<string | null>;
  /**
   * The sets for a home country: routed around the tunnel = the country, the private ranges and
   * the LAN; let out by the kill switch = the country; `alwaysTunneled` (the tunnel's block, the
   * resolver) carved out of both.
   */
  sets(country: string, alwaysTunneled: readonly string[]): Promise<SplitSets>;
}
