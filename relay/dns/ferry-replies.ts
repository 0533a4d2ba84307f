// Sends the relay's own replies to Ferry devices (its resolver's answers on the gateway address)
// back through Ferry. The Ferry server marks the replies it forwards as they come in
// (prerouting), but a reply the relay sends itself starts in the output path, where the device's
// address leads to WireGuard's interface: this route chain copies the connection's mark onto
// it, and the kernel routes it again by the Ferry table.
import type { NftTable } from '../../platform/os/nftables.js';
import { markRepliesExpr } from '../nat/firewall.js';
import type { RelayOs } from '../os.js';

export class FerryLocalReplies {
  private constructor(
    private readonly os: Pick<RelayOs, 'firewall'>,
    private readonly table: NftTable,
  ) {}

  /** One nft transaction; a table left by a relay that was killed is replaced. */
  static async create(
    os: Pick<RelayOs, 'firewall'>,
    table: string,
    mark: number,
  ): Promise<FerryLocalReplies> {
    const t: NftTable = { family: 'inet', name: table };
    await os.firewall.apply(t, [
      // A route chain at mangle's priority: a changed mark makes the kernel route the packet again.
      { chain: { name: 'output', type: 'route', hook: 'output', prio: -150, policy: 'accept' } },
      { rule: { chain: 'output', expr: markRepliesExpr(mark) } },
    ]);
    return new FerryLocalReplies(os, t);
  }

  async close(): Promise<void> {
    await this.os.firewall.remove(this.table).catch(() => undefined);
  }
}
