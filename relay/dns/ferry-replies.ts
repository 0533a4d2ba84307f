// Sends the relay's own replies to Ferry devices (its resolver's answers on the gateway address)
// back through Ferry. The Ferry server marks the replies it forwards as they come in
// (prerouting), but a reply the relay sends itself starts in the output path, where the device's
// address leads to WireGuard's interface: this route chain copies the connection's mark onto
// it, and the kernel routes it again by the Ferry table.
import { run } from '../system.js';

export class FerryLocalReplies {
  private constructor(private readonly table: string) {}

  /** One nft transaction; a table left by a relay that was killed is replaced. */
  static async create(table: string, mark: number): Promise<FerryLocalReplies> {
    await run('nft', ['delete', 'table', 'inet', table], { allowFailure: true });
    const m = `0x${mark.toString(16)}`;
    await run('nft', [
      `add table inet ${table}; ` +
        `add chain inet ${table} output { type route hook output priority mangle; policy accept; }; ` +
        `add rule inet ${table} output ct direction reply ct mark ${m} meta mark set ${m}`,
    ]);
    return new FerryLocalReplies(table);
  }

  async close(): Promise<void> {
    await run('nft', ['delete', 'table', 'inet', this.table], { allowFailure: true });
  }
}
