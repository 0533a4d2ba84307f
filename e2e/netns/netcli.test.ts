// The spec's table as a user goes through it: `netcli daemon` in a client namespace, the control
// plane behind the internet router, relays in asia-east and global, an echo service. init ->
// account create -> connect over WireGuard, then Ferry, then each cipher -> the echo service
// sees the relay and connect named it -> config changes the live tunnel follows -> region rules
// -> disconnect (the echo service sees the client; nothing of Ferry's is left on the host). The
// same through the local API with curl over the unix socket, and the daemon's own lifetime
// (SIGTERM cleans up; after a kill -9 the next start does).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetcliHost } from './netcli-host.js';
import { Testbed } from './testbed.js';

describe('netcli through the spec’s table', () => {
  let bed: Testbed;
  let laptop: NetcliHost;
  const netcli = (...args: string[]) => laptop.run(...args);
  const json = (...args: string[]) => laptop.json(...args);
  const human = (...args: string[]) => laptop.human(...args);
  const exitIp = () => laptop.exitIp();
  const leftovers = () => laptop.leftovers();

  beforeAll(async () => {
    bed = await Testbed.start({ controlPlaneOn: 'servers' });
    await bed.addRelay('tokyo', 'asia-east', { ferry: true });
    await bed.addRelay('zurich', 'global', { ferry: true });
    laptop = await NetcliHost.start(bed, 'laptop');
  }, 120_000);
  afterAll(async () => {
    await laptop?.stop();
    await bed?.stop();
  }, 60_000);

  it('says what to do before it is set up', () => {
    const r = netcli('connect');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/netcli init/);
  });

  it('inits, creates an account and connects over WireGuard with the relay as exit', () => {
    const own = exitIp();
    expect(own).toBe(laptop.address);
    human('init', '--protocol', 'wireguard', '--endpoint', `${bed.controlUrl}/api/v1`);
    const account = human('account', 'create');
    expect(account).toMatch(/\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{4}/);
    const tokyo = bed.relays.get('tokyo')!.address;
    const out = human('connect', '--region', 'asia-east');
    // The node, the protocol and cipher in effect, the latency, and the exit before -> after.
    expect(out).toMatch(/asia-east/);
    expect(out).toMatch(/WireGuard/i);
    expect(out).toMatch(/ChaCha20-Poly1305/);
    expect(out).toMatch(/\d+(\.\d)?\s?ms/);
    expect(out).toContain(own!);
    expect(out).toContain(tokyo);
    expect(exitIp()).toBe(tokyo);
    const status = json('status');
    expect(status).toMatchObject({
      status: 'connected',
      region: 'asia-east',
      protocol: 'wireguard',
    });
    expect(status.latency).toMatch(/^\d+(\.\d)?ms$/);
  }, 60_000);

  it('measures latency with authenticated probes: the current node, and every node with --all', () => {
    const current = json('latency-check', '--count', '3');
    expect(current.results).toHaveLength(1);
    expect(current.results[0]).toMatchObject({ region: 'asia-east', samples: 3, loss: 0 });
    const all = json('latency-check', '--all', '--count', '4');
    expect(all.results.map((r: { region: string }) => r.region).sort()).toEqual([
      'asia-east',
      'global',
    ]);
    for (const r of all.results) {
      expect(r).toMatchObject({ samples: 4, loss: 0 });
      expect(r.avg_ms).toBeGreaterThan(0);
      expect(r.jitter_ms).toBeGreaterThanOrEqual(0);
    }
    expect(all.duration_ms).toBeLessThan(3_000);
    const table = human('latency-check', '--all');
    expect(table).toMatch(/asia-east/);
    expect(table).toMatch(/global/);
    expect(table).toMatch(/probe/i);
    const regions = json('region', 'list');
    for (const r of regions.regions.filter((x: { allowed: boolean }) => x.allowed))
      expect(r.latency).toMatch(/ms$/);
  }, 60_000);

  it('switches the live tunnel to Ferry and to each cipher', () => {
    const tokyo = bed.relays.get('tokyo')!.address;
    const protocol = human('config', 'set', 'protocol', 'ferry');
    expect(protocol).toMatch(/reconnect/i);
    expect(json('status')).toMatchObject({ status: 'connected', protocol: 'ferry' });
    expect(exitIp()).toBe(tokyo);
    for (const cipher of ['AES-256-GCM', 'ChaCha20-Poly1305']) {
      json('config', 'set', 'encryption', cipher);
      expect(json('status')).toMatchObject({ status: 'connected', protocol: 'ferry', cipher });
      expect(exitIp()).toBe(tokyo);
    }
  }, 90_000);

  it('connects to a region rule by its name', () => {
    json('region', 'add', '--area', 'global', '--strategy', 'least-load', '--name', 'anywhere');
    const regions = json('region', 'list');
    expect(regions.rules).toEqual([{ name: 'anywhere', area: 'global', strategy: 'least-load' }]);
    const answer = json('connect', '--region', 'anywhere');
    expect(answer).toMatchObject({ status: 'connected', region: 'global' });
    expect(exitIp()).toBe(bed.relays.get('zurich')!.address);
  }, 60_000);

  it('answers the spec’s exact connect body over the unix socket', () => {
    const connect = laptop.curl('POST', '/connect', {
      encryption: 'AES-256-GCM',
      protocol: 'WireGuard',
      region: 'auto',
      usage: 'remote-work',
    });
    expect(connect.status).toBe(200);
    expect(connect.body).toMatchObject({ status: 'connected', cipher: 'ChaCha20-Poly1305' });
    const status = laptop.curl('GET', '/status');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ status: 'connected' });
    expect(status.body.latency).toMatch(/^\d+(\.\d)?ms$/);
    expect(typeof status.body.region).toBe('string');
    const bad = laptop.curl('POST', '/connect', { protocol: 'openvpn', encryption: 'rot13' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation-failed');
    const fields = Object.fromEntries(
      (bad.body.errors as { field: string; allowed?: string[] }[]).map((e) => [e.field, e.allowed]),
    );
    expect(fields.protocol).toEqual(['wireguard', 'ferry']);
    expect(fields.encryption).toEqual(['AES-256-GCM', 'ChaCha20-Poly1305']);
  }, 60_000);

  it('disconnects: the echo service sees the client again and nothing of ours is left', () => {
    const out = human('disconnect');
    expect(out).toMatch(/disconnected/i);
    expect(exitIp()).toBe(laptop.address);
    expect(leftovers()).toEqual([]);
  }, 30_000);

  it('cleans up on SIGTERM, and after a kill -9 at the next start', async () => {
    json('connect', '--region', 'asia-east');
    expect(leftovers()).not.toEqual([]);
    expect(await laptop.daemon!.stop()).toBe(0);
    expect(leftovers()).toEqual([]);
    await laptop.startDaemon();
    json('connect', '--region', 'asia-east');
    laptop.daemon!.child.kill('SIGKILL');
    await laptop.daemon!.exited;
    await laptop.startDaemon();
    expect(json('status').status).toBe('disconnected');
    expect(leftovers()).toEqual([]);
    expect(exitIp()).toBe(laptop.address);
  }, 90_000);
});
