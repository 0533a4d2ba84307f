// Resolves device tokens on PostgreSQL together with each device's live session (connect needs
// both): one named statement, shared by the lookups that arrive while one is in flight.
import type pg from 'pg';
import type { TokenHolderRow } from './devices-repo.js';
import {
  fromRow,
  LIVE_SESSION_COLUMNS,
  type LiveSessionRecord,
  type Row as LiveRow,
} from './live-sessions.postgres.js';
import { QueryBatcher } from './query-batcher.js';

interface AuthRow {
  auth_token_hash: string;
  auth_device_id: string;
  auth_account_id: number;
  auth_account_number: string;
  auth_plan: string;
  auth_tunnel_ipv4: string;
  auth_tunnel_ipv6: string;
}

const SESSION_COLUMNS = LIVE_SESSION_COLUMNS.split(',')
  .map((c) => `ls.${c.trim()}`)
  .join(', ');

/** A token's device with its live session as of the lookup (null: none). */
export type TokenHolderWithSession = TokenHolderRow & { sessionAtAuth: LiveSessionRecord | null };

/** Needs the live_sessions table: open PostgresLiveSessions first. */
export class PostgresDeviceAuth {
  /**
   * Each lookup is still sent after its request arrived, so it sees every revocation and plan
   * change committed before then, on any instance.
   */
  private readonly lookups = new QueryBatcher<string, TokenHolderWithSession | undefined>(
    (hashes) => this.lookup(hashes),
  );

  constructor(private readonly pool: pg.Pool) {}

  authByTokenHash(tokenHash: string): Promise<TokenHolderWithSession | undefined> {
    return this.lookups.call(tokenHash);
  }

  private async lookup(tokenHashes: string[]): Promise<(TokenHolderWithSession | undefined)[]> {
    const { rows } = await this.pool.query<AuthRow & Partial<LiveRow>>({
      name: 'ferry-device-auth',
      text: `select d.token_hash as auth_token_hash, d.id as auth_device_id, a.id as auth_account_id,
                    a.number as auth_account_number, a.plan as auth_plan,
                    d.tunnel_ipv4 as auth_tunnel_ipv4, d.tunnel_ipv6 as auth_tunnel_ipv6,
                    ${SESSION_COLUMNS}
               from devices d
               join accounts a on a.id = d.account_id
               left join live_sessions ls on ls.device_id = d.id
              where d.token_hash = any($1::text[])`,
      values: [tokenHashes],
    });
    const byHash = new Map(rows.map((r) => [r.auth_token_hash, r]));
    // A fresh object per caller, even for the same token twice in one batch.
    return tokenHashes.map((hash) => {
      const r = byHash.get(hash);
      return r && toAuth(r);
    });
  }
}

function toAuth(r: AuthRow & Partial<LiveRow>): TokenHolderWithSession {
  return {
    deviceId: r.auth_device_id,
    accountId: r.auth_account_id,
    accountNumber: r.auth_account_number,
    plan: r.auth_plan,
    tunnelIpv4: r.auth_tunnel_ipv4,
    tunnelIpv6: r.auth_tunnel_ipv6,
    sessionAtAuth: r.device_id ? fromRow(r as LiveRow) : null,
  };
}
