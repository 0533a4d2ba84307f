// The spec's table as a user goes through it, in one flow: `netcli daemon` in a client namespace,
// the control plane behind the internet router, relays in asia-east (tokyo) and global (zurich),
// an echo service, an office server, and a mock streaming platform. init -> account create (the
// account, its devices) -> connect over WireGuard, then Ferry, then each cipher (the echo service
// sees the relay, and connect named it) -> latency-check (--all: both regions with avg, jitter,
// loss) -> config set encryption/protocol (the live tunnel follows) -> region add + connect to the
// rule -> stream-test against the mock platform -> service add + tunnel start --service/--tag
// (the office exits via the service tunnel, everything else via the main one, both at once) ->
// the local API with curl (the spec's exact connect body) -> disconnect (the echo service sees
// the client; nothing of Ferry's is left: links, routes, rules) -> logout, login, devices revoke
// -> the daemon's own lifetime (SIGTERM cleans up; after a kill -9 the next start does).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamTestResult } from '../../contracts/index.js';
import { mockPlatformEntry, writePlatformsFile } from './mock-platform.js';
import { NetcliHost } from './netcli-host.js';
import { Testbed } from './testbed.js';

const LATENCY = /^\d+(\.\d)?ms$/;

describe('netcli through the spec’s table, in one flow', () => {
  let bed: Testbed;
  let laptop: NetcliHost;
  let tokyo: string;
  let zurich: string;
  let office: { address: string; url: string };
  let accountNumber: string;
  const netcli = (...args: string[]) => laptop.run(...args);
  const json = (...args: string[]) => laptop.json(...args);
  const human = (...args: string[]) => laptop.human(...args);
  const exitIp = () => laptop.exitIp();
  const leftovers = () => laptop.leftovers();
  /** The interface the laptop's kernel sends a packet to `address` out of. */
  const routeOf = (address: string) =>
    /\bdev (\S+)/.exec(bed.net.exec('laptop', ['ip', 'route', 'get', address]))?.[1];
  const echoOffice = () => bed.echoFrom('laptop', 3, office.url);
  /** stream-test --json, whatever its exit code (1 when the verdict is not OK). */
  const streamTest = () => {
    const r = netcli('stream-test', '--platform', 'netflix', '--json');
    if (r.stdout.trim() === '') throw new Error(`stream-test printed nothing: ${r.stderr}`);
    return { code: r.code, result: StreamTestResult.parse(JSON.parse(r.stdout)) };
  };

  beforeAll(async () => {
    bed = await Testbed.start({ controlPlaneOn: 'servers' });
    tokyo = (await bed.addRelay('tokyo', 'asia-east', { ferry: true })).address;
    zurich = (await bed.addRelay('zurich', 'global', { ferry: true })).address;
    office = await bed.startEcho('office');
    // The platform serves the JP catalogue to tokyo and flags zurich as a proxy.
    const platform = await bed.startMockPlatform('netflix', {
      byAddress: { [tokyo]: 'JP', [zurich]: 'proxy' },
    });
    const platforms = writePlatformsFile(bed, {
      netflix: mockPlatformEntry('netflix', platform.url),
    });
    laptop = await NetcliHost.start(bed, 'laptop', { daemonArgs: ['--platforms-file', platforms] });
  }, 180_000);
  afterAll(async () => {
    await laptop?.stop();
    await bed?.stop();
  }, 60_000);

  it('says what to do before it is set up', () => {
    const r = netcli('connect');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/netcli init/);
  });

  it('reaches the control plane only over https it can verify', () => {
    // Plain http to a control plane on the network is refused before anything is sent.
    const plain = netcli(
      'init',
      '--endpoint',
      `${bed.controlUrl.replace('https:', 'http:')}/api/v1`,
    );
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/^netcli: the service URL must be https/);
    // Without the service's CA, its certificate does not verify: the call stops at the handshake.
    human('init', '--protocol', 'wireguard', '--endpoint', `${bed.controlUrl}/api/v1`);
    const untrusted = netcli('account', 'create');
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toMatch(/certificate is not trusted/);
    expect(untrusted.stderr).toMatch(/--ca-file/);
    const diagnosis = netcli('diagnose');
    expect(diagnosis.stdout).toMatch(/^FAIL {2}Control plane: .* did not prove who it is/m);
  }, 60_000);

  it('inits and creates an account: the account and its one device', () => {
    expect(exitIp()).toBe(laptop.address);
    human('init', '--protocol', 'wireguard', ...bed.endpointArgs('/api/v1'));
    const created = human('account', 'create', '--device-name', 'laptop');
    const number = /\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{4}/.exec(created)?.[0];
    expect(number).toBeDefined();
    accountNumber = number!.replace(/\D/g, '');
    const account = json('account');
    expect(account).toMatchObject({
      account_number: accountNumber,
      plan: { id: 'basic' },
      devices: { used: 1 },
      device: { name: 'laptop' },
    });
    expect(human('account')).toMatch(/Basic/);
    const devices = json('devices').devices;
    expect(devices).toHaveLength(1);
    expect(devices[0]).toMatchObject({ name: 'laptop', current: true });
    expect(human('devices', 'rename', devices[0].id, 'work-laptop')).toMatch(/work-laptop/);
    expect(json('devices', 'list').devices[0].name).toBe('work-laptop');
  }, 60_000);

  it('connects over WireGuard: connect names the relay, and the echo service sees it', () => {
    const own = laptop.address;
    const out = human('connect', '--region', 'asia-east');
    // The node, the protocol and cipher in effect, the latency, and the exit before -> after.
    expect(out).toMatch(/asia-east/);
    expect(out).toMatch(/WireGuard/i);
    expect(out).toMatch(/ChaCha20-Poly1305/);
    expect(out).toMatch(/\d+(\.\d)?\s?ms/);
    expect(out).toContain(own);
    expect(out).toContain(tokyo);
    expect(exitIp()).toBe(tokyo);
    const status = json('status');
    expect(status).toMatchObject({
      status: 'connected',
      region: 'asia-east',
      protocol: 'wireguard',
    });
    expect(status.latency).toMatch(LATENCY);
  }, 60_000);

  it('connects over Ferry, then with each cipher', () => {
    const out = human('connect', '--region', 'asia-east', '--protocol', 'ferry');
    expect(out).toMatch(/Ferry/);
    expect(out).toContain(tokyo);
    expect(json('status')).toMatchObject({ status: 'connected', protocol: 'ferry' });
    expect(exitIp()).toBe(tokyo);
    for (const cipher of ['AES-256-GCM', 'ChaCha20-Poly1305']) {
      const answer = json(
        ...`connect --region asia-east --protocol ferry --encryption ${cipher}`.split(' '),
      );
      expect(answer).toMatchObject({ status: 'connected', protocol: 'ferry', cipher });
      expect(json('status')).toMatchObject({ status: 'connected', protocol: 'ferry', cipher });
      expect(exitIp()).toBe(tokyo);
    }
  }, 90_000);

  it('measures latency with authenticated probes: connected, the node in use through the tunnel; disconnected, every node with --all', () => {
    const current = json('latency-check', '--count', '3');
    expect(current.results).toHaveLength(1);
    expect(current.results[0]).toMatchObject({
      region: 'asia-east',
      samples: 3,
      loss: 0,
      method: 'ICMP echo to the node through the tunnel',
    });
    // Connected, no probe leaves for another node: --all measures the node in use and says why.
    const connected = json('latency-check', '--all', '--count', '2');
    expect(connected.results.map((r: { region: string }) => r.region)).toEqual(['asia-east']);
    expect(connected.note).toMatch(/only the node in use is measured while connected/);
    expect(human('latency-check', '--all')).toMatch(
      /Note: only the node in use.*disconnect to measure every node\.$/m,
    );
    human('disconnect');
    const all = json('latency-check', '--all', '--count', '4');
    expect(all.results.map((r: { region: string }) => r.region).sort()).toEqual([
      'asia-east',
      'global',
    ]);
    expect(all).not.toHaveProperty('note');
    for (const r of all.results) {
      expect(r).toMatchObject({ samples: 4, loss: 0, method: 'authenticated UDP probe' });
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
    json('connect', '--region', 'asia-east', '--protocol', 'ferry');
  }, 60_000);

  it('follows config set encryption and protocol on the live tunnel', () => {
    expect(human('config', 'set', 'encryption', 'AES-256-GCM')).toMatch(/reconnect/i);
    expect(json('config', 'get', 'encryption')).toEqual({ encryption: 'AES-256-GCM' });
    expect(json('status')).toMatchObject({ status: 'connected', cipher: 'AES-256-GCM' });
    expect(exitIp()).toBe(tokyo);
    expect(human('config', 'set', 'protocol', 'wireguard')).toMatch(/reconnect/i);
    expect(json('status')).toMatchObject({ status: 'connected', protocol: 'wireguard' });
    expect(exitIp()).toBe(tokyo);
    expect(human('config', 'set', 'protocol', 'ferry')).toMatch(/reconnect/i);
    expect(json('status')).toMatchObject({
      status: 'connected',
      protocol: 'ferry',
      cipher: 'AES-256-GCM',
    });
    expect(exitIp()).toBe(tokyo);
    const listed = human('config', 'list');
    expect(listed).toMatch(/protocol\s+ferry/);
    expect(listed).toMatch(/encryption\s+AES-256-GCM/);
  }, 90_000);

  it('connects to a region rule by its name', () => {
    json('region', 'add', '--area', 'global', '--strategy', 'least-load', '--name', 'anywhere');
    expect(json('region', 'list').rules).toEqual([
      { name: 'anywhere', area: 'global', strategy: 'least-load' },
    ]);
    const answer = json('connect', '--region', 'anywhere');
    expect(answer).toMatchObject({ status: 'connected', region: 'global', protocol: 'ferry' });
    expect(exitIp()).toBe(zurich);
  }, 60_000);

  it('tests a streaming platform through the tunnel: flagged at zurich, the JP catalogue at tokyo', () => {
    const flagged = streamTest();
    expect(flagged.code).toBe(1);
    expect(flagged.result).toMatchObject({
      platform: 'netflix',
      reachable: true,
      node_region: 'global',
      verdict: 'proxy-detected',
    });
    expect(flagged.result.fix).toMatch(/netcli connect --mode stream --platform netflix/);
    json('connect', '--region', 'asia-east');
    const ok = streamTest();
    expect(ok.code).toBe(0);
    expect(ok.result).toMatchObject({
      reachable: true,
      catalog_region: 'JP',
      node_region: 'asia-east',
      matches: true,
      verdict: 'ok',
    });
    expect(human('stream-test', '--platform', 'netflix')).toMatch(
      /^Netflix: OK · the JP catalogue/,
    );
  }, 90_000);

  it('runs a service tunnel beside the main one: the office via zurich, the rest via tokyo', () => {
    expect(human('service', 'add', 'office', '--cidr', `${office.address}/32`)).toMatch(
      /^Service office added: 1 network/,
    );
    const services = json('service', 'list').services as { name: string; builtin: boolean }[];
    expect(services.filter((s) => !s.builtin).map((s) => s.name)).toEqual(['office']);
    expect(echoOffice()).toBe(tokyo);
    const started = human(...'tunnel start --service office --tag work --region global'.split(' '));
    expect(started).toMatch(/^Tunnel work established via node_\S+ \(global\), latency \d/);
    const [work] = json('tunnel', 'list').tunnels;
    expect(work).toMatchObject({ tag: 'work', service: 'office', status: 'connected' });
    const main = json('status');
    expect(routeOf(office.address)).toBe(work.interface);
    expect(routeOf(bed.net.host('echo').address)).toBe(main.interface);
    // Both at once.
    expect(echoOffice()).toBe(zurich);
    expect(exitIp()).toBe(tokyo);
    expect(human('tunnel', 'stop', '--tag', 'work')).toBe(
      'Tunnel work (service office) stopped.\n',
    );
    expect(echoOffice()).toBe(tokyo);
    human('service', 'remove', 'office');
    expect(
      (json('service', 'list').services as { builtin: boolean }[]).filter((s) => !s.builtin),
    ).toEqual([]);
  }, 90_000);

  it('answers the spec’s exact connect body over the unix socket', () => {
    const connect = laptop.curl('POST', '/connect', {
      encryption: 'AES-256-GCM',
      protocol: 'WireGuard',
      region: 'auto',
      usage: 'remote-work',
    });
    expect(connect.status).toBe(200);
    // WireGuard has one cipher: the answer says which one carries the tunnel.
    expect(connect.body).toMatchObject({
      status: 'connected',
      protocol: 'wireguard',
      cipher: 'ChaCha20-Poly1305',
    });
    expect([tokyo, zurich]).toContain(exitIp());
    const status = laptop.curl('GET', '/status');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ status: 'connected' });
    expect(status.body.latency).toMatch(LATENCY);
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
    expect(human('disconnect')).toMatch(/disconnected/i);
    expect(json('status').status).toBe('disconnected');
    expect(exitIp()).toBe(laptop.address);
    expect(leftovers()).toEqual([]);
  }, 30_000);

  it('signs out and in again as a new device, and revokes another device of the account', async () => {
    const before = json('devices').devices[0].id;
    expect(human('logout')).toMatch(/Signed out/);
    const signedOut = netcli('devices');
    expect(signedOut.code).not.toBe(0);
    expect(signedOut.stderr).toMatch(/netcli login|account create/);
    human('login', accountNumber, '--device-name', 'laptop');
    const mine = json('devices').devices;
    expect(mine).toHaveLength(1);
    expect(mine[0].id).not.toBe(before);
    const phone = await bed.newDevice(accountNumber, 'phone');
    expect(json('devices').devices).toHaveLength(2);
    expect(human('devices', 'revoke', phone.id)).toBe(
      `Device ${phone.id} was removed from the account.\n`,
    );
    expect(json('devices').devices.map((d: { id: string }) => d.id)).toEqual([mine[0].id]);
    human('region', 'remove', 'anywhere');
    expect(json('region', 'list').rules).toEqual([]);
  }, 60_000);

  it('cleans up on SIGTERM; after a kill -9 it holds, reconnects at the next start, and disconnect opens up', async () => {
    json('connect', '--region', 'asia-east');
    expect(leftovers()).not.toEqual([]);
    expect(await laptop.daemon!.stop()).toBe(0);
    expect(leftovers()).toEqual([]);
    await laptop.startDaemon();
    json('connect', '--region', 'asia-east');
    laptop.daemon!.child.kill('SIGKILL');
    await laptop.daemon!.exited;
    // The kill switch stayed in the kernel: nothing gets out while no engine runs.
    expect(leftovers()).toContain('nft table inet ferry');
    expect(exitIp()).toBeUndefined();
    await laptop.startDaemon();
    await bed.net.waitFor('the reconnect after the crash', 20_000, () =>
      json('status').status === 'connected' ? true : undefined,
    );
    expect(exitIp()).toBe(tokyo);
    human('disconnect');
    expect(leftovers()).toEqual([]);
    expect(exitIp()).toBe(laptop.address);
  }, 90_000);
});
