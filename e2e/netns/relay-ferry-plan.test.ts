// The free plan holds over Ferry as over WireGuard: its rate limit, and its monthly data cap
// (Ferry bytes count, and crossing the cap cuts the device), through a real relay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Testbed, refusal, type Client } from './testbed.js';

const MBIT = 1e6;
const MiB = 1024 ** 2;

describe('the free plan over Ferry', () => {
  let bed: Testbed;
  let relay: string;
  let basic: { bandwidth_limit_mbps: number; data_cap_bytes: number };
  beforeAll(async () => {
    bed = await Testbed.start();
    relay = (await bed.addRelay('anywhere', 'global', { ferry: true })).address;
    for (const port of [5201, 5202, 5203, 5204]) bed.startIperfServer(port);
    const plan = (await bed.control().listPlans()).plans.find((p) => p.id === 'basic')!;
    const { bandwidth_limit_mbps, data_cap_bytes } = plan;
    if (bandwidth_limit_mbps === null || data_cap_bytes === null)
      throw new Error('these tests need a free plan with a rate limit and a data cap');
    basic = { bandwidth_limit_mbps, data_cap_bytes };
  }, 120_000);
  afterAll(async () => bed?.stop(), 60_000);

  const exitsThroughRelay = async (host: string, client?: Client) => {
    try {
      await bed.net.waitFor(`${host} to exit through the relay`, 20_000, () =>
        bed.echoFrom(host, 1) === relay ? true : undefined,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${bed.diagnostics(client)}`);
    }
  };

  it('holds a free Ferry device near the plan rate, as a free WireGuard one, and not a premium one', async () => {
    const limit = basic.bandwidth_limit_mbps * MBIT;
    const freeFerry = await bed.newDevice(await bed.newAccount('basic'), 'free-ferry');
    const paidFerry = await bed.newDevice(await bed.newAccount('premium'), 'paid-ferry');
    const freeWg = await bed.addClient('freewg', await bed.newDevice(await bed.newAccount()));
    await bed.addFerryClient('freeferry', freeFerry, { region: 'global' });
    await bed.addFerryClient('paidferry', paidFerry, { region: 'global' });
    await bed.connect(freeWg, { region: 'global' });
    await exitsThroughRelay('freeferry');
    await exitsThroughRelay('paidferry');
    await exitsThroughRelay('freewg', freeWg);

    const overFerry = await bed.iperf('freeferry', 5201, 5);
    const overWireGuard = await bed.iperf('freewg', 5202, 5);
    const premium = await bed.iperf('paidferry', 5203, 5);
    expect(overWireGuard).toBeGreaterThan(limit * 0.5);
    expect(overWireGuard).toBeLessThan(limit * 1.3);
    expect(overFerry).toBeGreaterThan(limit * 0.5);
    expect(overFerry).toBeLessThan(limit * 1.3);
    expect(premium).toBeGreaterThan(limit * 2);
  }, 120_000);

  it("counts a device's Ferry bytes toward the monthly cap, and cuts it when they cross it", async () => {
    const account = await bed.newAccount('basic');
    const device = await bed.newDevice(account, 'capped-ferry');
    await bed.addFerryClient('capped', device, { region: 'global' });
    await exitsThroughRelay('capped');
    // This month the account already used all but 3 MiB elsewhere.
    await bed.reportUsageElsewhere(device.id, basic.data_cap_bytes - 3 * MiB);
    const usage = async () => (await bed.control(device.token).getAccount()).usage.bytes;
    expect(await usage()).toBeLessThan(basic.data_cap_bytes);
    expect(bed.echoFrom('capped', 2)).toBe(relay);

    // About 10 MB at the free plan's 20 Mbit/s; the transfer ends early once the device is cut.
    await bed.pushTraffic('capped', 5204, 4);
    try {
      await bed.net.waitFor('the capped device to be cut', 15_000, () =>
        bed.echoFrom('capped', 0.5) === undefined ? true : undefined,
      );
    } catch (e) {
      throw new Error(
        `${(e as Error).message} (usage ${await usage()} of ${basic.data_cap_bytes})\n${bed.diagnostics()}`,
      );
    }
    expect(await usage()).toBeGreaterThanOrEqual(basic.data_cap_bytes);
    const refused = await refusal(
      bed.control(device.token).connect({ body: { protocol: 'ferry', region: 'global' } }),
    );
    expect(refused).toMatchObject({ status: 403, code: 'data-cap-reached' });
  }, 90_000);
});
