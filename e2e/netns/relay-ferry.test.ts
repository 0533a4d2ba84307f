// End to end through a relay with the Ferry protocol: `ferry-tun client` configured from
// POST /connect (protocol ferry) reaches the echo service with the relay's exit address, over
// UDP and over TCP, and the control plane sees the tunnel up (connected once the client reports
// the round trip its keepalives measure, as the engine does).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Testbed } from './testbed.js';

describe('the Ferry protocol through a relay', () => {
  let bed: Testbed;
  beforeAll(async () => {
    bed = await Testbed.start();
    await bed.addRelay('tokyo', 'asia-east', { ferry: true });
  }, 120_000);
  afterAll(async () => bed?.stop(), 60_000);

  const exitOf = async (host: string, expected: string) => {
    try {
      return await bed.net.waitFor(`${host} to exit through ${expected}`, 20_000, () =>
        bed.echoFrom(host, 1) === expected ? expected : undefined,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${bed.diagnostics()}`);
    }
  };

  it.each(['udp', 'tcp'] as const)(
    'carries a device over %s with the relay as exit',
    async (transport) => {
      const device = await bed.newDevice(await bed.newAccount(), `ferry-${transport}`);
      const host = `f${transport}`;
      const { answer, process } = await bed.addFerryClient(
        host,
        device,
        { region: 'asia-east', encryption: 'AES-256-GCM' },
        transport,
      );
      expect(answer).toMatchObject({
        protocol: 'ferry',
        cipher: 'AES-256-GCM',
        node: { ferry_port: 51900 },
      });
      expect(answer.node.ferry_public_key).toMatch(/=$/);
      const tokyo = bed.relays.get('tokyo')!.address;
      expect(await exitOf(host, tokyo)).toBe(tokyo);
      // A Ferry client measures its tunnel itself (the relay does not): connected needs its
      // report. The engine reports its keepalives' round trip; ferry-tun prints it (every 5 s).
      const rttMs = await bed.net.waitFor('a keepalive round trip', 15_000, () => {
        const m = /rtt ([\d.]+) ms/.exec(process.output());
        return m ? Number(m[1]) : undefined;
      });
      await bed.control(device.token).reportLatency({ body: { latency_ms: rttMs } });
      const status = await bed.net.waitFor('status connected', 10_000, async () => {
        const s = await bed.control(device.token).status();
        return s.status === 'connected' ? s : undefined;
      });
      expect(status).toMatchObject({ protocol: 'ferry', region: 'asia-east' });
      expect(status.latency).toMatch(/^\d+ms$/);
      expect(await process.stop()).toBe(0);
    },
    90_000,
  );

  it('cuts a revoked Ferry device without a relay restart', async () => {
    const account = await bed.newAccount();
    const keeper = await bed.newDevice(account, 'keeper');
    const device = await bed.newDevice(account, 'ferry-revokee');
    await bed.addFerryClient('frevoked', device, { region: 'asia-east' });
    const tokyo = bed.relays.get('tokyo')!.address;
    await exitOf('frevoked', tokyo);
    await bed.control(keeper.token).revokeDevice({ params: { id: device.id } });
    await bed.net.waitFor('traffic to stop', 3_000, () =>
      bed.echoFrom('frevoked', 0.3) === undefined ? true : undefined,
    );
  }, 90_000);
});
