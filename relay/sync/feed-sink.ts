// Where feed answers go: the peer table (WireGuard, the firewall and Ferry), with every failure
// turned into relay health (degraded, counted, logged with its reason) and a retry, except one
// that leaves revoked WireGuard peers in place: then the relay stops (fail closed).
import { reasonOf, type RelayHealth } from '../health.js';
import { PeerApplyError, type PeerTable } from '../wireguard/peer-table.js';
import type { FeedSink } from './feed-follower.js';

export interface SinkOptions {
  /** A Ferry server runs beside WireGuard. */
  ferry: boolean;
  /** WireGuard cannot apply revocations: the relay must stop serving rather than keep revoked peers. */
  failClosed(reason: string): void;
}

export function peerTableSink(peers: PeerTable, health: RelayHealth, o: SinkOptions): FeedSink {
  return {
    async apply(answer) {
      try {
        const { upserts, removes, refused } = await peers.apply(answer);
        for (const r of refused) health.refused('wireguard', r.id, r.reason);
        health.recovered('wireguard', 'peer-updates');
        if (o.ferry) health.recovered('ferry', 'rate-limits');
        return { upserts, removes };
      } catch (e) {
        if (e instanceof PeerApplyError && e.stage === 'revocations') {
          health.stopped('wireguard', 'revocations', reasonOf(e));
          o.failClosed(`WireGuard peers could not be removed: ${reasonOf(e)}`);
          return { upserts: 0, removes: 0, retry: true };
        }
        health.failed('wireguard', 'peer-updates', reasonOf(e));
        // Ferry peers are let in only once their rate limits hold: those wait too.
        if (o.ferry && e instanceof PeerApplyError && e.stage === 'limits')
          health.failed('ferry', 'rate-limits', reasonOf(e));
        return { upserts: 0, removes: 0, retry: true };
      }
    },
  };
}
