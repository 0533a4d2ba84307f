// The repositories over one database (SQLite or PostgreSQL), and transactions that bind them to
// one Kysely transaction: what the control plane's domain works with.
import { AccountsRepo } from './accounts-repo.js';
import { DevicesRepo } from './devices-repo.js';
import { FeedRepo } from './feed-repo.js';
import { NodePlatformsRepo } from './node-platforms-repo.js';
import { PublicKeysRepo } from './public-keys-repo.js';
import { RegionsRepo } from './regions-repo.js';
import type { Db, Dialect } from './schema.js';
import { TunnelsRepo } from './tunnels-repo.js';

/** The repositories inside one transaction. */
export interface SqlTransaction {
  accounts: AccountsRepo;
  devices: DevicesRepo;
  tunnels: TunnelsRepo;
  keys: PublicKeysRepo;
  regions: RegionsRepo;
  feed: FeedRepo;
}

export class SqlStores {
  readonly accounts: AccountsRepo;
  readonly devices: DevicesRepo;
  readonly tunnels: TunnelsRepo;
  readonly regions: RegionsRepo;
  readonly feed: FeedRepo;
  readonly nodePlatforms: NodePlatformsRepo;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {
    this.accounts = new AccountsRepo(db, dialect);
    this.devices = new DevicesRepo(db);
    this.tunnels = new TunnelsRepo(db, dialect);
    this.regions = new RegionsRepo(db);
    this.feed = new FeedRepo(db, dialect);
    this.nodePlatforms = new NodePlatformsRepo(db);
  }

  /** Committed when `work` resolves, rolled back when it throws (Kysely's transaction). */
  transaction<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) =>
      work({
        accounts: new AccountsRepo(trx, this.dialect),
        devices: new DevicesRepo(trx),
        tunnels: new TunnelsRepo(trx, this.dialect),
        keys: new PublicKeysRepo(trx, this.dialect),
        regions: new RegionsRepo(trx),
        feed: new FeedRepo(trx, this.dialect),
      }),
    );
  }
}
