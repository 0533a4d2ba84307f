// Two devices of one account, each with its own engine in its own namespace, connected at once
// through one relay: both carry traffic at the same time (iperf3 side by side), each exits at the
// relay, each keeps its own tunnel address, and one disconnecting leaves the other connected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetcliHost } from './netcli-host.js';
import { Testbed } from './testbed.js';

describe('two devices of one account at once', () => {
  let bed: Testbed;
  let a: NetcliHost;
  let b: NetcliHost;
  beforeAll(async () => {
    bed = await Testbed.start({ controlPlaneOn: 'servers' });
    await bed.addRelay('tokyo', 'asia-east', { ferry: true });
    [a, b] = await Promise.all([NetcliHost.start(bed, 'laptop'), NetcliHost.start(bed, 'desk')]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await bed?.stop();
  }, 60_000);

  it('signs both in to one account, connects both through one relay, and they do not interfere', async () => {
    for (const h of [a, b]) h.json('init', ...bed.endpointArgs('/api/v1'));
    const account = a.json('account', 'create');
    const login = b.json('login', account.account_number, '--device-name', 'desk');
    expect(login.account_number).toBe(account.account_number);
    expect(login.device.id).not.toBe(account.device.id);
    expect(login.device.tunnel_ipv4).not.toBe(account.device.tunnel_ipv4);

    // One over WireGuard, one over Ferry: both protocols side by side on one relay.
    a.json('connect', '--region', 'asia-east', '--protocol', 'wireguard');
    b.json('connect', '--region', 'asia-east', '--protocol', 'ferry');
    const tokyo = bed.relays.get('tokyo')!.address;
    expect(a.exitIp()).toBe(tokyo);
    expect(b.exitIp()).toBe(tokyo);

    bed.startIperfServer(5301);
    bed.startIperfServer(5302);
    const [rateA, rateB] = await Promise.all([
      bed.iperf('laptop', 5301, 3),
      bed.iperf('desk', 5302, 3),
    ]);
    expect(rateA).toBeGreaterThan(1e6);
    expect(rateB).toBeGreaterThan(1e6);
    for (const h of [a, b]) {
      const s = h.json('status');
      expect(s).toMatchObject({ status: 'connected', region: 'asia-east' });
      expect(s.latency).toMatch(/ms$/);
    }
    expect(a.exitIp()).toBe(tokyo);
    expect(b.exitIp()).toBe(tokyo);

    // The account lists both devices; one leaving does not touch the other.
    const devices = a.json('devices').devices as { id: string }[];
    expect(devices.map((d) => d.id).sort()).toEqual([account.device.id, login.device.id].sort());
    a.json('disconnect');
    expect(a.exitIp()).toBe(a.address);
    expect(b.json('status').status).toBe('connected');
    expect(b.exitIp()).toBe(tokyo);
    b.json('disconnect');
    expect(a.leftovers()).toEqual([]);
    expect(b.leftovers()).toEqual([]);
  }, 120_000);
});
