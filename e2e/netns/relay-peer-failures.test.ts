// A relay that can no longer reach its WireGuard interface's control socket (wireguard-go keeps
// forwarding, but no peer can be added or removed): the node says WireGuard is degraded, so new WireGuard sessions
// go elsewhere while Ferry on the same node still takes them, and a revocation it cannot apply
// stops the relay instead of leaving the revoked device connected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sh } from './test-network.js';
import { Testbed, refusal, type RelayHandle } from './testbed.js';

describe('a relay whose peer updates fail', () => {
  let bed: Testbed;
  let relay: RelayHandle;
  beforeAll(async () => {
    bed = await Testbed.start();
    relay = await bed.addRelay('tokyo', 'asia-east', { ferry: true });
  }, 120_000);
  afterAll(async () => bed?.stop(), 60_000);

  const exitsThroughRelay = async (host: string) => {
    try {
      await bed.net.waitFor(`${host} to exit through the relay`, 20_000, () =>
        bed.echoFrom(host, 1) === relay.address ? true : undefined,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${bed.diagnostics()}`);
    }
  };

  it('sends no new sessions to a data plane that cannot take peers, and stops rather than keep a revoked one', async () => {
    const account = await bed.newAccount();
    const keeper = await bed.newDevice(account, 'keeper');
    const old = await bed.addClient('old', await bed.newDevice(account, 'old'));
    await bed.connect(old, { region: 'asia-east' });
    await exitsThroughRelay('old');

    // In the relay's own mount namespace only, the socket's path now leads nowhere. (Deleting
    // the socket would make wireguard-go exit.)
    sh('nsenter', [
      '-t',
      String(relay.process.child.pid),
      '-m',
      'mount',
      '--bind',
      '/dev/null',
      `/var/run/wireguard/${relay.interfaceName}.sock`,
    ]);
    // A device signs in: the feed brings it, and WireGuard cannot take it.
    const newcomer = await bed.newDevice(await bed.newAccount(), 'newcomer');
    const refused = await bed.net.waitFor('WireGuard connects to be refused', 15_000, async () => {
      const r = await refusal(
        bed.control(newcomer.token).connect({ body: { region: 'asia-east' } }),
      );
      return r.status === 503 && r.code === 'no-node-available' ? r : undefined;
    });
    expect(refused.detail).toMatch(/wireguard/);
    // Ferry on the same node is unaffected, and the device already connected keeps working.
    const ferry = await bed.newDevice(await bed.newAccount(), 'ferry');
    try {
      await bed.addFerryClient('ferry', ferry, { region: 'asia-east' });
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${bed.diagnostics()}`);
    }
    await exitsThroughRelay('ferry');
    expect(bed.echoFrom('old', 2)).toBe(relay.address);

    // Its revocation cannot reach WireGuard: the relay stops serving altogether.
    await bed.control(keeper.token).revokeDevice({ params: { id: old.device.id } });
    expect(await relay.process.exited).toBe(1);
    expect(bed.echoFrom('old', 2)).toBeUndefined();
    expect(relay.process.output()).toMatch(/revocations cannot be applied/);
  }, 120_000);
});
