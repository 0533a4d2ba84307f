// Service tunnels as a user runs them: `netcli daemon` in a client namespace, the control plane
// behind the internet router, relays in asia-east (tokyo) and global (zurich), an office with two
// echo services (one named by its network, one by a domain the laptop resolves), and an echo
// service in a cloud VPC. The main tunnel goes to tokyo; `tunnel start --service office` to
// zurich carries only the office's addresses, on its own interface, while everything else still
// goes through the main tunnel, and a second service tunnel (Ferry) carries the VPC beside both.
// `tunnel stop` removes its interface and routes; revoking the device takes its tunnels off the
// control plane and every relay.
import { existsSync, mkdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetcliHost } from './netcli-host.js';
import { Testbed } from './testbed.js';

/** A domain of the office, known to the laptop's resolver only (its namespace's /etc/hosts). */
const WIKI_DOMAIN = 'wiki.office.test';

describe('netcli service tunnels', () => {
  let bed: Testbed;
  let laptop: NetcliHost;
  let netnsEtc: string | undefined;
  /** /etc/netns is removed again when this test made it (and nothing else is in it). */
  const hadNetnsDir = existsSync('/etc/netns');
  let office: { address: string; url: string };
  let wiki: { address: string; url: string };
  let vpcUrl: string;
  let tokyo: string;
  let zurich: string;
  const json = (...args: string[]) => laptop.json(...args);
  const human = (...args: string[]) => laptop.human(...args);
  const echo = (url: string) => bed.echoFrom('laptop', 3, url);
  const ex = (...argv: string[]) => bed.net.exec('laptop', argv);
  const links = () =>
    (JSON.parse(ex('ip', '-j', 'link', 'show')) as { ifname: string }[]).map((l) => l.ifname);
  /** The interface the laptop's kernel sends a packet to `address` out of. */
  const routeOf = (address: string) => /\bdev (\S+)/.exec(ex('ip', 'route', 'get', address))?.[1];

  beforeAll(async () => {
    bed = await Testbed.start({ controlPlaneOn: 'servers' });
    await bed.addRelay('tokyo', 'asia-east', { ferry: true });
    await bed.addRelay('zurich', 'global', { ferry: true });
    tokyo = bed.relays.get('tokyo')!.address;
    zurich = bed.relays.get('zurich')!.address;
    office = await bed.startEcho('office');
    wiki = await bed.startEcho('wiki');
    vpcUrl = await bed.startVpcEcho();
    laptop = await NetcliHost.start(bed, 'laptop');
    // The wiki's name resolves on the laptop only: `ip netns exec` puts /etc/netns/<ns>/hosts
    // over /etc/hosts for what it starts, so the daemon starts again once it is there.
    netnsEtc = path.join('/etc/netns', bed.net.host('laptop').ns);
    mkdirSync(netnsEtc, { recursive: true });
    writeFileSync(
      path.join(netnsEtc, 'hosts'),
      `127.0.0.1 localhost\n::1 localhost\n${wiki.address} ${WIKI_DOMAIN}\n`,
    );
    await laptop.daemon!.stop();
    await laptop.startDaemon();
  }, 180_000);
  afterAll(async () => {
    await laptop?.stop();
    await bed?.stop();
    if (netnsEtc) rmSync(netnsEtc, { recursive: true, force: true });
    if (!hadNetnsDir) {
      try {
        rmdirSync('/etc/netns');
      } catch {
        // Another test's namespace files are in it: theirs to remove.
      }
    }
  }, 60_000);

  let accountNumber: string;
  let deviceId: string;

  it('connects the main tunnel to tokyo: every echo service sees tokyo', () => {
    human('init', '--protocol', 'wireguard', ...bed.endpointArgs('/api/v1'));
    const account = json('account', 'create');
    accountNumber = account.account_number;
    deviceId = account.device.id;
    json('connect', '--region', 'asia-east');
    expect(laptop.exitIp()).toBe(tokyo);
    expect(echo(office.url)).toBe(tokyo);
    expect(echo(wiki.url)).toBe(tokyo);
  }, 60_000);

  it('adds the office service by network and by domain', () => {
    const added = human(
      'service',
      'add',
      'office',
      '--cidr',
      `${office.address}/32`,
      '--domain',
      WIKI_DOMAIN,
    );
    expect(added).toMatch(/^Service office added: 1 network and 1 domain\./);
    const vpcSubnet = bed.net.vpcSubnet;
    json('service', 'add', 'vpc', '--cidr', vpcSubnet);
    const listed = json('service', 'list').services as { name: string; builtin: boolean }[];
    expect(listed.filter((s) => !s.builtin).map((s) => s.name)).toEqual(['office', 'vpc']);
    const bad = laptop.run('service', 'add', 'lab', '--cidr', '10.120.0.7/16');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/host bits set/);
  }, 30_000);

  let work: { interface: string; tunnel_ipv4: string };

  it('starts the office tunnel via zurich beside the main tunnel: only the office goes through it', () => {
    const out = human(
      'tunnel',
      'start',
      '--service',
      'office',
      '--tag',
      'work',
      '--region',
      'global',
    );
    expect(out).toMatch(
      /^Tunnel work established via node_\S+ \(global\), latency \d+(\.\d)?ms\.\nService office: 2 destinations through fytwork[0-9a-f]{6} \(WireGuard, ChaCha20-Poly1305\)\.\n$/,
    );
    const list = json('tunnel', 'list').tunnels;
    expect(list).toHaveLength(1);
    work = list[0];
    expect(list[0]).toMatchObject({
      tag: 'work',
      service: 'office',
      status: 'connected',
      region: 'global',
      protocol: 'wireguard',
      destinations: 2,
    });
    expect(list[0].latency).toMatch(/^\d+(\.\d)?ms$/);
    const main = json('status');
    expect(main).toMatchObject({ status: 'connected', region: 'asia-east' });
    expect(work.interface).not.toBe(main.interface);

    // The office's addresses leave by the service tunnel's interface; the rest by the main one.
    expect(routeOf(office.address)).toBe(work.interface);
    expect(routeOf(wiki.address)).toBe(work.interface);
    expect(routeOf(bed.net.host('echo').address)).toBe(main.interface);
    // Both at once: the office sees zurich, everything else still sees tokyo.
    expect(echo(office.url)).toBe(zurich);
    expect(echo(wiki.url)).toBe(zurich);
    expect(laptop.exitIp()).toBe(tokyo);
    expect(echo(vpcUrl)).toBe(tokyo);
    // Nothing of the office's addresses or names in what the daemon said.
    const said = laptop.daemon!.output();
    for (const secret of [office.address, wiki.address, WIKI_DOMAIN])
      expect(said).not.toContain(secret);
  }, 60_000);

  it('runs a second service tunnel (Ferry, tokyo) beside both, without interference', () => {
    const lab = json(
      'tunnel',
      'start',
      '--service',
      'vpc',
      '--tag',
      'lab',
      '--region',
      'asia-east',
      '--protocol',
      'ferry',
    );
    expect(lab).toMatchObject({ tag: 'lab', protocol: 'ferry', region: 'asia-east' });
    expect(routeOf(bed.net.vpcSubnet.replace(/0\/24$/, '9'))).toBe(lab.interface);
    expect(echo(vpcUrl)).toBe(tokyo);
    expect(echo(office.url)).toBe(zurich);
    expect(laptop.exitIp()).toBe(tokyo);
    const tags = (json('tunnel', 'list').tunnels as { tag: string }[]).map((t) => t.tag);
    expect(tags).toEqual(['lab', 'work']);
    // The same tag or the same service again is refused.
    const again = laptop.run('tunnel', 'start', '--service', 'office', '--tag', 'work');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/tunnel tagged work is running/);
  }, 60_000);

  it('stops the office tunnel: its interface and routes go, the office sees tokyo again', async () => {
    const observer = await bed.newDevice(accountNumber, 'observer');
    const registered = async () =>
      (await bed.control(observer.token).listTunnels({ params: { id: deviceId } })).tunnels.map(
        (t) => t.tag,
      );
    expect((await registered()).sort()).toEqual(['lab', 'work']);
    const out = human('tunnel', 'stop', '--tag', 'work');
    expect(out).toBe('Tunnel work (service office) stopped.\n');
    expect(links()).not.toContain(work.interface);
    expect(ex('ip', 'route', 'show', 'table', 'all')).not.toContain(work.interface);
    expect(routeOf(office.address)).toBe(json('status').interface);
    expect(echo(office.url)).toBe(tokyo);
    expect(echo(vpcUrl)).toBe(tokyo);
    expect(await registered()).toEqual(['lab']);
    expect(json('tunnel', 'list').tunnels.map((t: { tag: string }) => t.tag)).toEqual(['lab']);
  }, 60_000);

  it('revoking the device takes its tunnels off the control plane and the relays', async () => {
    human('tunnel', 'start', '--service', 'office', '--tag', 'work', '--region', 'global');
    expect(echo(office.url)).toBe(zurich);
    const observer = await bed.newDevice(accountNumber, 'revoker');
    const control = bed.control(observer.token);
    const tunnels = (await control.listTunnels({ params: { id: deviceId } })).tunnels;
    expect(tunnels.map((t) => t.tag).sort()).toEqual(['lab', 'work']);
    const zurichRelay = bed.relays.get('zurich')!;
    const peersOf = (host: string, iface: string) =>
      bed.net.exec(host, ['wg', 'show', iface, 'peers']);
    const workKey = tunnels.find((t) => t.tag === 'work')!.wireguard_public_key;
    expect(peersOf('zurich', zurichRelay.interfaceName)).toContain(workKey);

    await control.revokeDevice({ params: { id: deviceId } });
    const gone = await control.listTunnels({ params: { id: deviceId } }).then(
      () => 'still there',
      (e: { code?: string }) => e.code,
    );
    expect(gone).toBe('not-found');
    await bed.net.waitFor('the relay to drop the tunnel’s peer', 15_000, () =>
      peersOf('zurich', zurichRelay.interfaceName).includes(workKey) ? undefined : true,
    );
    // The tunnel is still up here, but its relay no longer carries it.
    expect(echo(office.url)).toBeUndefined();

    // Signing out here stops the rest; nothing of ours is left on the laptop.
    json('logout');
    expect(json('tunnel', 'list').tunnels).toEqual([]);
    expect(laptop.leftovers()).toEqual([]);
    expect(echo(office.url)).toBe(laptop.address);
  }, 90_000);
});
