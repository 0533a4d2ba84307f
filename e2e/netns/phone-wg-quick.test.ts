// Phones and tablets on the official tools, end to end: `netcli devices add` on a laptop makes the
// device's key pair there and writes its config and QR code; a "phone" namespace comes up from
// that file with the official `wg-quick` (userspace wireguard-go), DNS line included (the
// namespace has its own resolv.conf and a resolvconf that wg-quick calls). Names resolve through
// the relay's resolver, HTTP exits at the relay, the control plane shows the phone connected with
// a latency (so does `netcli devices list`), and `netcli devices revoke` cuts it within 2 s. No
// request `netcli devices add` makes carries the private key (the control plane's interface is
// captured), the control plane refuses one that does, and the QR code decodes to exactly the
// config. A laptop on netcli, a phone and a tablet of one account carry traffic at once, each
// listed connected with its latency.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_KEY_REFUSED } from '../../contracts/index.js';
import { startDnsAuthority, TEST_ZONE, type DnsAuthority } from './dns-authority.js';
import { NetcliHost } from './netcli-host.js';
import { readPcapTcp } from './pcap.js';
import { requireTools, sh } from './test-network.js';
import { Testbed, type RelayHandle } from './testbed.js';

const ECHO_PORT = 8000;

/** A device on the official tools: its namespace, wg-quick's config file and interface. */
interface WgQuickDevice {
  host: string;
  interfaceName: string;
  configFile: string;
  /** What resolvconf was called with, one call a line. */
  resolvconfLog: string;
  /** The namespace's own resolv.conf (what its processes see at /etc/resolv.conf). */
  resolvConf: string;
  /** The PATH wg-quick runs with: the namespace's resolvconf first. */
  path: string;
}

/** Every file under `dir` (recursively), with its bytes. */
function filesUnder(dir: string): { file: string; bytes: Buffer }[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const file = path.join(e.parentPath, e.name);
      return { file, bytes: readFileSync(file) };
    });
}

describe('phones and tablets from netcli devices add, on the official wg-quick', () => {
  let bed: Testbed;
  let relay: RelayHandle;
  let authority: DnsAuthority;
  let laptop: NetcliHost;
  /** Where the laptop's netcli writes the configs and QR codes (the laptop user's files). */
  let files: string;
  /** The machine's own resolv.conf, which nothing here may touch. */
  let hostResolvConf: string;
  const devices = new Map<string, WgQuickDevice>();
  let phone: { id: string; config: string };

  beforeAll(async () => {
    requireTools(['wg-quick', 'zbarimg', 'tcpdump', 'iperf3', 'getent']);
    hostResolvConf = readFileSync('/etc/resolv.conf', 'utf8');
    // Plain HTTP on purpose: the capture of the control plane's interface must read what the
    // engine sends (the public key, never the private one), which TLS would hide.
    bed = await Testbed.start({
      controlPlaneOn: 'servers',
      relayTunnelLatencySeconds: 1,
      controlPlaneTls: false,
    });
    try {
      authority = await startDnsAuthority(bed, 'dns', { wildcard: bed.net.host('echo').address });
      relay = await bed.addRelay('tokyo', 'asia-east', { dnsUpstream: authority.address });
      laptop = await NetcliHost.start(bed, 'laptop');
      files = path.join(bed.net.dir, 'laptop-files');
      mkdirSync(files, { mode: 0o700 });
      laptop.json(
        'init',
        '--protocol',
        'wireguard',
        '--endpoint',
        `${bed.controlUrl}/api/v1`,
        '--insecure',
      );
      laptop.json('account', 'create', '--device-name', 'laptop');
    } catch (e) {
      await bed.stop();
      throw e;
    }
  }, 120_000);

  afterAll(async () => {
    for (const d of devices.values()) {
      try {
        wgQuick(d, 'down');
      } catch {
        // already down, or its namespace is going anyway
      }
    }
    await laptop?.stop();
    await bed?.stop();
  }, 60_000);

  /** The laptop's device token, from its engine's sign-in file (the test is root on its machine). */
  const laptopToken = (): string =>
    (
      JSON.parse(readFileSync(path.join(laptop.stateDir, 'session.json'), 'utf8')) as {
        token: string;
      }
    ).token;

  /**
   * A namespace for a device on the official tools, its own resolv.conf, and a resolvconf for
   * wg-quick: `-a IFACE` takes the nameserver lines on stdin, `-d IFACE` takes them back. It
   * writes the namespace's own file (/etc/netns/<ns>/resolv.conf, which `ip netns exec` shows at
   * /etc/resolv.conf), named by its full path: never the machine's /etc/resolv.conf.
   */
  function addWgQuickDevice(host: string, config: string): WgQuickDevice {
    bed.net.addAccessHost(host);
    const before = `# ${host} before its tunnel\nnameserver ${bed.net.accessGateway}\n`;
    const resolvConf = bed.net.setEtcFile(host, 'resolv.conf', before);
    const dir = path.join(bed.net.dir, host);
    const bin = path.join(dir, 'bin');
    mkdirSync(bin, { recursive: true, mode: 0o700 });
    const saved = path.join(dir, 'resolv.conf.before');
    writeFileSync(saved, before);
    const resolvconfLog = path.join(dir, 'resolvconf.log');
    const script = path.join(bin, 'resolvconf');
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        `# wg-quick's resolvconf in the test namespace ${bed.net.host(host).ns}: its own resolv.conf only.`,
        'set -e',
        `echo "$*" >> '${resolvconfLog}'`,
        'case "$1" in',
        `  -a) cat > '${resolvConf}' ;;`,
        `  -d) cat '${saved}' > '${resolvConf}' ;;`,
        'esac',
        '',
      ].join('\n'),
    );
    chmodSync(script, 0o755);
    // wg-quick names the interface after the file: fy<run id>p<n>, 15 characters at most, and
    // prefixed like the test network's own so that its cleanup finds a leftover UAPI socket.
    const interfaceName = `fy${bed.net.id}p${devices.size}`;
    const configFile = path.join(dir, `${interfaceName}.conf`);
    writeFileSync(configFile, config, { mode: 0o600 });
    const device: WgQuickDevice = {
      host,
      interfaceName,
      configFile,
      resolvconfLog,
      resolvConf,
      path: `${bin}:${process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin'}`,
    };
    devices.set(host, device);
    return device;
  }

  function wgQuick(d: WgQuickDevice, action: 'up' | 'down'): string {
    return bed.net.exec(d.host, [
      'env',
      `PATH=${d.path}`,
      'WG_QUICK_USERSPACE_IMPLEMENTATION=wireguard-go',
      'wg-quick',
      action,
      d.configFile,
    ]);
  }

  /** The account's devices as `netcli devices list --json` on the laptop gives them. */
  const listedDevices = () =>
    laptop.json('devices').devices as {
      id: string;
      name: string;
      current: boolean;
      status: string;
      latency: string | null;
      region: string | null;
    }[];

  /** The phone's status as the control plane shows it to the account's other devices. */
  const statusOf = (id: string) => bed.control(laptopToken()).deviceStatus({ params: { id } });

  /** Resolves `name` with the host's own resolver (glibc: /etc/resolv.conf), retrying a while. */
  const resolveOn = (host: string, name: string) =>
    bed.net.waitFor(`${host} to resolve ${name}`, 20_000, () => {
      try {
        return bed.net.exec(host, ['getent', 'ahostsv4', name]).split(/\s+/)[0] || undefined;
      } catch {
        return undefined;
      }
    });

  const privateKeyOf = (config: string) => /^PrivateKey = (\S+)$/m.exec(config)![1]!;

  it('adds a phone with a key made on the laptop: no request carries it, the QR code decodes to the config', async () => {
    const conf = path.join(files, 'phone.conf');
    const png = path.join(files, 'phone.png');
    const pcap = path.join(bed.net.dir, 'control-plane.pcap');
    const stopCapture = await bed.net.capture('ctrl', 'eth0', 'tcp port 8080', pcap, {
      maxSeconds: 60,
    });
    const added = laptop.json(
      'devices',
      'add',
      '--kind',
      'phone',
      '--name',
      'phone',
      '--region',
      'asia-east',
      '--out',
      conf,
      '--qr',
      png,
    );
    await stopCapture();
    expect(added.device).toMatchObject({ name: 'phone', kind: 'phone', current: false });
    phone = { id: added.device.id, config: added.config };
    const config = readFileSync(conf, 'utf8');
    expect(config).toBe(added.config);
    const key = privateKeyOf(config);
    expect(sh('wg', ['pubkey'], `${key}\n`).trim()).toBe(added.device.wireguard_public_key);

    // Every byte between the laptop's engine and the control plane, per TCP flow in order: the
    // device's public key went over (the capture saw the registration), its private key never.
    const flows = new Map<string, Buffer[]>();
    for (const s of readPcapTcp(pcap)) {
      const flow = `${s.src}:${s.sport}>${s.dst}:${s.dport}`;
      flows.set(flow, [...(flows.get(flow) ?? []), s.payload]);
    }
    const streams = [...flows.values()].map((parts) => Buffer.concat(parts));
    const seen = Buffer.concat(streams).toString('latin1');
    expect(seen).toContain('POST /api/v1/devices HTTP/1.1');
    expect(seen).toMatch(new RegExp(`POST /api/v1/devices/${added.device.id}/wireguard-config`));
    expect(seen).toContain(added.device.wireguard_public_key);
    const raw = Buffer.from(key, 'base64');
    for (const stream of streams) {
      expect(stream.includes(key)).toBe(false);
      expect(stream.includes(raw)).toBe(false);
      expect(stream.includes(raw.toString('hex'))).toBe(false);
      expect(stream.includes(encodeURIComponent(key))).toBe(false);
    }
    // Nor did the laptop's engine keep it: not in its state directory, not in its output.
    for (const f of filesUnder(laptop.stateDir)) {
      expect(f.bytes.includes(key), f.file).toBe(false);
      expect(f.bytes.includes(raw), f.file).toBe(false);
    }
    expect(laptop.daemon!.output()).not.toContain(key);

    // The control plane refuses a request that carries a private key, and says why.
    const refused = await fetch(
      `${bed.controlUrl}/api/v1/devices/${added.device.id}/wireguard-config`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${laptopToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ region: 'asia-east', private_key: key }),
      },
    );
    expect(refused.status).toBe(400);
    const problem = (await refused.json()) as { code: string; errors: unknown[] };
    expect(problem.code).toBe('validation-failed');
    expect(problem.errors).toEqual([{ field: 'private_key', message: PRIVATE_KEY_REFUSED }]);

    // The QR code is the config, byte for byte.
    expect(sh('zbarimg', ['--raw', '-q', '-Sbinary', png])).toBe(config);
  }, 60_000);

  it('brings the phone up with wg-quick from that file: DNS through the relay, HTTP exits there, connected with a latency', async () => {
    const device = addWgQuickDevice('phone', phone.config);
    const up = wgQuick(device, 'up');
    expect(up).toBe('');
    expect(bed.net.exec('phone', ['wg', 'show', device.interfaceName, 'peers']).trim()).not.toBe(
      '',
    );
    // wg-quick set the phone's resolver from the config's DNS line, through our resolvconf.
    expect(readFileSync(device.resolvconfLog, 'utf8')).toBe(`-a ${device.interfaceName} -m 0 -x\n`);
    expect(bed.net.exec('phone', ['cat', '/etc/resolv.conf'])).toBe('nameserver 10.64.0.1\n');
    expect(readFileSync('/etc/resolv.conf', 'utf8')).toBe(hostResolvConf);

    // A name of the test zone, resolved by the phone's own resolver: through the tunnel to the
    // relay's resolver, which asked the zone's server itself.
    const name = `${randomBytes(6).toString('hex')}.${TEST_ZONE}`;
    try {
      expect(await resolveOn('phone', name)).toBe(bed.net.host('echo').address);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${bed.diagnostics()}`);
    }
    expect(new Set(await authority.waitAsked(name))).toEqual(new Set([relay.address]));
    expect(authority.whoAsked(name)).not.toContain(bed.net.host('phone').address);
    // HTTP by that name and by address: both leave at the relay.
    expect(bed.echoFrom('phone', 5, `http://${name}:${ECHO_PORT}/`)).toBe(relay.address);
    expect(bed.echoFrom('phone')).toBe(relay.address);

    // The control plane: connected, with the relay's own measurement through the tunnel.
    const status = await bed.net.waitFor(
      'the phone to show connected with a latency',
      20_000,
      async () => {
        const s = await statusOf(phone.id);
        return s.status === 'connected' && s.latency !== null ? s : undefined;
      },
    );
    expect(status).toMatchObject({
      region: 'asia-east',
      node_id: relay.nodeId,
      protocol: 'wireguard',
    });
    expect(status.latency).toMatch(/^\d+ms$/);
    // netcli devices list says the same of it.
    expect(listedDevices().find((d) => d.id === phone.id)).toMatchObject({
      status: 'connected',
      latency: expect.stringMatching(/^\d+ms$/),
      region: 'asia-east',
      current: false,
    });
  }, 90_000);

  it('carries a laptop on netcli, the phone and a tablet of one account at once, each exiting at the relay', async () => {
    const tablet = laptop.json(
      'devices',
      'add',
      '--kind',
      'tablet',
      '--name',
      'tablet',
      '--region',
      'asia-east',
      '--allow-lan',
      '--out',
      path.join(files, 'tablet.conf'),
    );
    // Its LAN stays out of the tunnel; the relay's resolver and gateway stay in it.
    const allowed = /^AllowedIPs = (.*)$/m.exec(tablet.config)![1]!.split(', ');
    expect(allowed).not.toContain('0.0.0.0/0');
    expect(allowed).toContain('10.64.0.1/32');
    const tabletDevice = addWgQuickDevice('tablet', tablet.config);
    wgQuick(tabletDevice, 'up');
    const connected = laptop.json('connect', '--region', 'asia-east');
    expect(connected).toMatchObject({ status: 'connected', region: 'asia-east' });

    // The plan's three devices are in use: a fourth is refused, saying which to revoke.
    const fourth = laptop.run('devices', 'add', '--kind', 'phone', '--name', 'fourth');
    expect(fourth.code).toBe(1);
    expect(fourth.stderr).toMatch(/allows 3 devices/);
    expect(fourth.stderr).toContain('netcli devices revoke <id>');

    for (const host of ['laptop', 'phone', 'tablet'])
      expect(
        await bed.net.waitFor(`${host} through the relay`, 10_000, () =>
          bed.echoFrom(host) === relay.address ? relay.address : undefined,
        ),
      ).toBe(relay.address);
    // Three tunnels, three addresses.
    const addressOf = (config: string) => /^Address = ([\d.]+)\//m.exec(config)![1]!;
    const laptopDevice = (
      laptop.json('devices').devices as { current: boolean; tunnel_ipv4: string }[]
    ).find((d) => d.current)!;
    expect(
      new Set([laptopDevice.tunnel_ipv4, addressOf(phone.config), addressOf(tablet.config)]).size,
    ).toBe(3);
    // The tablet resolves through the relay too.
    const name = `${randomBytes(6).toString('hex')}.${TEST_ZONE}`;
    expect(await resolveOn('tablet', name)).toBe(bed.net.host('echo').address);
    expect(new Set(await authority.waitAsked(name))).toEqual(new Set([relay.address]));

    bed.startIperfServer(5401);
    bed.startIperfServer(5402);
    bed.startIperfServer(5403);
    const [viaLaptop, viaPhone, viaTablet] = await Promise.all([
      bed.iperf('laptop', 5401, 3),
      bed.iperf('phone', 5402, 3),
      bed.iperf('tablet', 5403, 3),
    ]);
    expect(viaLaptop).toBeGreaterThan(1e6);
    expect(viaPhone).toBeGreaterThan(1e6);
    expect(viaTablet).toBeGreaterThan(1e6);
    for (const host of ['laptop', 'phone', 'tablet'])
      expect(bed.echoFrom(host)).toBe(relay.address);
    expect(laptop.json('status')).toMatchObject({ status: 'connected', region: 'asia-east' });
    expect((await statusOf(phone.id)).status).toBe('connected');
    expect((await statusOf(tablet.device.id)).status).toBe('connected');
    // netcli devices list: each device's state and latency, as `tailscale status` lists its
    // peers (the laptop's from its engine's reports, the phone's and tablet's from the relay).
    await bed.net.waitFor('every device listed as connected', 10_000, () =>
      listedDevices().every((d) => d.status === 'connected') ? true : undefined,
    );
    const table = laptop.human('devices').trimEnd().split('\n');
    expect(table[0]).toMatch(/^ID\s+NAME\s+KIND\s+STATE\s+LATENCY\s+REGION$/);
    const rowOf = (name: string) => table.find((l) => l.split(/\s+/)[1] === name) ?? '';
    expect(rowOf('laptop')).toMatch(
      /\slaptop\s+desktop\s+connected\s+\d+ms\s+asia-east\s+\(this device\)$/,
    );
    expect(rowOf('phone')).toMatch(/\sphone\s+connected\s+\d+ms\s+asia-east$/);
    expect(rowOf('tablet')).toMatch(/\stablet\s+connected\s+\d+ms\s+asia-east$/);
  }, 120_000);

  it('cuts the phone within 2 s of netcli devices revoke, and only the phone', async () => {
    expect(bed.echoFrom('phone')).toBe(relay.address);
    const started = Date.now();
    const revoked = laptop.json('devices', 'revoke', phone.id);
    expect(revoked).toEqual({ revoked: phone.id, signed_in: true });
    await bed.net.waitFor('the phone to be cut', Math.max(0, 2_000 - (Date.now() - started)), () =>
      bed.echoFrom('phone', 0.3) === undefined ? true : undefined,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    // It stays cut (its key is unknown to the relay now); the others go on.
    expect(bed.echoFrom('phone', 1)).toBeUndefined();
    expect(bed.echoFrom('tablet')).toBe(relay.address);
    expect(bed.echoFrom('laptop')).toBe(relay.address);
    const gone = await statusOf(phone.id).then(
      () => undefined,
      (e: { code?: string }) => e.code,
    );
    expect(gone).toBe('not-found');
  }, 60_000);

  it('takes the tunnels down with wg-quick down, putting each resolver back', async () => {
    for (const d of devices.values()) {
      wgQuick(d, 'down');
      await bed.net.waitFor(`${d.interfaceName} to go`, 10_000, () =>
        bed.net.exec(d.host, ['ip', '-o', 'link', 'show']).includes(d.interfaceName)
          ? undefined
          : true,
      );
      expect(readFileSync(d.resolvconfLog, 'utf8').trim().split('\n').slice(-1)[0]).toBe(
        `-d ${d.interfaceName} -f`,
      );
      expect(bed.net.exec(d.host, ['cat', '/etc/resolv.conf'])).toMatch(/before its tunnel/);
      // wireguard-go went with its interface.
      expect(
        await bed.net.waitFor(`wireguard-go on ${d.host} to exit`, 10_000, () =>
          sh('ip', ['netns', 'pids', bed.net.host(d.host).ns]).trim() === '' ? true : undefined,
        ),
      ).toBe(true);
    }
    devices.clear();
    laptop.json('disconnect');
    expect(readFileSync('/etc/resolv.conf', 'utf8')).toBe(hostResolvConf);
  }, 60_000);
});
