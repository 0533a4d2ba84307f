// What a connect splits by: split off, or the home country (configured or detected) and its sets,
// or, when the country is unknown, nothing split and a notice that says why and what to set.
import {
  TUNNEL_IPV4_CIDR,
  TUNNEL_IPV6_CIDR,
  type ClientConfig,
  type Notice,
} from '../../contracts/index.js';
import type { SplitSets, SplitTunnelSource } from './split-tunnel.js';

export class SplitChoice {
  #notice: Notice | null = null;
  #home: string | null = null;

  /** `source` undefined: no split data (everything is tunneled). */
  constructor(private readonly source: SplitTunnelSource | undefined) {}

  /** The notice of the last choice (the home country unknown), null when none. */
  get notice(): Notice | null {
    return this.#notice;
  }

  /** The home country of the last choice, null when it did not split. */
  get home(): string | null {
    return this.#home;
  }

  /**
   * Whether an address is at home by the last choice (the engine's resolver's question), null
   * when the last choice did not split.
   */
  isHome(): ((address: string) => boolean) | null {
    const home = this.#home;
    const source = this.source;
    if (home === null || !source) return null;
    return (address) => source.countryOf(address) === home;
  }

  /**
   * The sets for the configuration and the address the service saw before the tunnel (null:
   * nothing is split). The tunnel's own block and a configured resolver always take the tunnel.
   */
  async setsFor(config: ClientConfig, exitBefore: string | null): Promise<SplitSets | null> {
    this.#notice = null;
    this.#home = null;
    if (config.split === 'off' || !this.source) return null;
    const home = await this.source.homeCountry(config.home_country, exitBefore);
    if (home === null) {
      this.#notice = {
        code: 'split-unavailable',
        message:
          'the home country is unknown, so everything goes through the tunnel; set it with netcli config set home_country <code>',
      };
      return null;
    }
    const alwaysTunneled = [TUNNEL_IPV4_CIDR, TUNNEL_IPV6_CIDR];
    if (config.dns !== 'auto') alwaysTunneled.push(config.dns);
    this.#home = home;
    return this.source.sets(home, alwaysTunneled);
  }
}
