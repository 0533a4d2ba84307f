// Devices on real relays: concurrent tunnels that do not interfere, revocation and key
// rotation without a relay restart, honest status, relay restarts and control-plane outages,
// and the free plan's rate limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Testbed, type Client } from './testbed.js';

const MBIT = 1e6;

describe('devices on real relays', () => {
  let bed: Testbed;
  let tokyo: string;
  let anywhere: string;
  beforeAll(async () => {
    bed = await Testbed.start();
    tokyo = (await bed.addRelay('tokyo', 'asia-east')).address;
    anywhere = (await bed.addRelay('anywhere', 'global')).address;
    for (const port of [5201, 5202, 5203]) bed.startIperfServer(port);
  }, 120_000);
  afterAll(async () => bed?.stop(), 60_000);

  const viaTunnel = async (client: Client, exit: string, timeoutMs = 20_000) => {
    try {
      await bed.net.waitFor(`${client.host} to exit through ${exit}`, timeoutMs, () =>
        bed.echoFrom(client.host, 1) === exit ? true : undefined,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${bed.diagnostics(client)}`);
    }
  };

  it('runs three devices of one account at once, on one relay and on two, without interference', async () => {
    const account = await bed.newAccount('premium');
    const a = await bed.addClient('phone', await bed.newDevice(account, 'phone'));
    const b = await bed.addClient('laptop', await bed.newDevice(account, 'laptop'));
    const c = await bed.addClient('desktop', await bed.newDevice(account, 'desktop'));
    await bed.connect(a, { region: 'asia-east' });
    await bed.connect(b, { region: 'asia-east' });
    await bed.connect(c, { region: 'global' });
    await viaTunnel(a, tokyo);
    await viaTunnel(b, tokyo);
    await viaTunnel(c, anywhere);

    const rates = await Promise.all([
      bed.iperf('phone', 5201, 3),
      bed.iperf('laptop', 5202, 3),
      bed.iperf('desktop', 5203, 3),
    ]);
    for (const r of rates) expect(r).toBeGreaterThan(5 * MBIT);
    // Each tunnel still carries its own device's traffic to its own exit.
    expect(bed.echoFrom('phone')).toBe(tokyo);
    expect(bed.echoFrom('laptop')).toBe(tokyo);
    expect(bed.echoFrom('desktop')).toBe(anywhere);
    // A device cannot reach another device's tunnel address through the relay.
    expect(() => bed.net.exec('phone', ['ping', '-c', '1', '-W', '1', b.device.ipv4])).toThrow();
  }, 90_000);

  it('cuts a revoked device within 2 seconds and lets a rotated key in, without a relay restart', async () => {
    const account = await bed.newAccount();
    const keeper = await bed.newDevice(account, 'keeper');
    const client = await bed.addClient('revokee', await bed.newDevice(account, 'revokee'));
    await bed.connect(client, { region: 'asia-east' });
    await viaTunnel(client, tokyo);
    const relayPid = bed.relays.get('tokyo')!.process.child.pid;

    const started = Date.now();
    await bed.control(keeper.token).revokeDevice({ params: { id: client.device.id } });
    await bed.net.waitFor('traffic to stop', 2_000, () =>
      bed.echoFrom('revokee', 0.3) === undefined ? true : undefined,
    );
    expect(Date.now() - started).toBeLessThan(2_000);

    // Rotation: the new key works, the old one no longer does.
    const rotating = await bed.addClient('rotator', await bed.newDevice(account, 'rotator'));
    await bed.connect(rotating, { region: 'asia-east' });
    await viaTunnel(rotating, tokyo);
    const { generateKeyPair } = await import('../../relay/keys.js');
    const fresh = generateKeyPair();
    await bed.control(keeper.token).rotateKeys({
      params: { id: rotating.device.id },
      body: { wireguard_public_key: fresh.publicKey },
    });
    await bed.net.waitFor('the old key to stop working', 3_000, () =>
      bed.echoFrom('rotator', 0.3) === undefined ? true : undefined,
    );
    bed.setPrivateKey(rotating, fresh.privateKey);
    await viaTunnel(rotating, tokyo);
    expect(bed.relays.get('tokyo')!.process.child.pid).toBe(relayPid);
    expect(bed.relays.get('tokyo')!.process.child.exitCode).toBeNull();
  }, 90_000);

  it("reports connected exactly while a device's tunnel is up", async () => {
    const client = await bed.addClient('watcher', await bed.newDevice(await bed.newAccount()));
    await bed.connect(client, { region: 'global' });
    // The relay's echoes (its latency measurement: connected needs one) come back through the
    // tunnel, as a full tunnel's would.
    bed.routeGateway(client);
    await viaTunnel(client, anywhere);
    const status = () => bed.control(client.device.token).status();
    // Measured at the handshake, or else at the relay's next round (5 s apart).
    await bed.net.waitFor('status connected', 15_000, async () =>
      (await status()).status === 'connected' ? true : undefined,
    );
    expect((await status()).region).toBe('global');
    await client.process.stop();
    await bed.net.waitFor('status to leave connected', 10_000, async () =>
      (await status()).status === 'connecting' ? true : undefined,
    );
  }, 60_000);

  it('restores every peer when a relay restarts, and keeps clients working without the control plane', async () => {
    const client = await bed.addClient('survivor', await bed.newDevice(await bed.newAccount()));
    await bed.connect(client, { region: 'asia-east' });
    await viaTunnel(client, tokyo);

    expect(await bed.relays.get('tokyo')!.process.stop()).toBe(0);
    expect(bed.echoFrom('survivor', 1)).toBeUndefined();
    await bed.startRelay('tokyo');
    // The client's WireGuard re-handshakes once its old session gets no answer (about 15 s).
    await viaTunnel(client, tokyo, 40_000);

    await bed.stopControlPlane();
    const started = Date.now();
    while (Date.now() - started < 3_000) {
      expect(bed.echoFrom('survivor', 2)).toBe(tokyo);
      await new Promise((r) => setTimeout(r, 500));
    }
    await bed.startControlPlane();
  }, 90_000);

  it('holds a free device near the plan rate and leaves a premium device unlimited', async () => {
    const free = await bed.addClient('free', await bed.newDevice(await bed.newAccount('basic')));
    const paid = await bed.addClient('paid', await bed.newDevice(await bed.newAccount('premium')));
    await bed.connect(free, { region: 'global' });
    await bed.connect(paid, { region: 'global' });
    await viaTunnel(free, anywhere);
    await viaTunnel(paid, anywhere);
    const { plans } = await bed.control().listPlans();
    const limit = plans.find((p) => p.id === 'basic')!.bandwidth_limit_mbps! * MBIT;

    const freeRate = await bed.iperf('free', 5201, 4);
    const paidRate = await bed.iperf('paid', 5202, 4);
    expect(freeRate).toBeGreaterThan(limit * 0.5);
    expect(freeRate).toBeLessThan(limit * 1.3);
    expect(paidRate).toBeGreaterThan(limit * 2);
  }, 90_000);
});
