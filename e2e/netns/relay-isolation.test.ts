// What a device reaches through its relay besides the internet: the relay host's own services
// (on the gateway address and on its public address), a cloud metadata service at
// 169.254.169.254 on the relay's uplink, a neighbour on the uplink's subnet and a private network
// behind it are all out of reach, for a WireGuard device and a Ferry device alike; each is
// shown reachable from the relay host itself, and what devices need of the relay still works:
// the internet, DNS and ping on the gateway, the latency probe, and the relay's control plane
// where it runs on the relay host itself or on a neighbour, by address or by name.
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_IPV4, type Node } from '../../contracts/index.js';
import {
  encodeProbeRequest,
  openProbeReply,
  type HmacSha256,
} from '../../platform/probes/latency-probe.js';
import { TEST_ZONE, queryFrom, startDnsAuthority } from './dns-authority.js';
import { Testbed, type RelayHandle } from './testbed.js';

const hmac: HmacSha256 = (k, m) => createHmac('sha256', k).update(m).digest();
/** The cloud metadata service's address (AWS, GCP, Azure, OpenStack alike). */
const METADATA = '169.254.169.254';
/** A port the relay host serves on every address, as an admin panel or a database might. */
const HOST_SERVICE_PORT = 8099;
/** The fwmark of the clients' own tunnel sockets, which a policy rule keeps out of the tunnel. */
const CLIENT_MARK = 0x5a;

/** An HTTP service that answers every request with `body`. */
const service = (port: number, body: string) =>
  `require('node:http').createServer((q, s) => s.end(${JSON.stringify(body)})).listen(${port}, '0.0.0.0')`;

/**
 * Run in a relay's namespace: the control plane on `port` of every address of the host (a
 * reverse proxy to the test's control plane), as when one machine runs both (scripts/start.sh).
 */
const CONTROL_PLANE_PROXY = `
const { target, ca, port } = JSON.parse(process.argv[1]);
const url = new URL(target);
const client = require(url.protocol === 'https:' ? 'node:https' : 'node:http');
require('node:http').createServer((req, res) => {
  const up = client.request({ host: url.hostname, port: url.port, path: req.url, method: req.method,
    headers: { ...req.headers, host: url.host }, ...(ca ? { ca: require('node:fs').readFileSync(ca) } : {}) },
    (r) => { res.writeHead(r.statusCode, r.headers); r.pipe(res); });
  up.on('error', () => res.destroy());
  req.pipe(up);
}).listen(port, '0.0.0.0');
`;
const LOCAL_CONTROL_PORT = 18080;

/** Run in a namespace: one probe from a socket of its own; prints the answer (hex) or null. */
const PROBE_ONCE = `
const { host, port, datagram } = JSON.parse(process.argv[1]);
const s = require('node:dgram').createSocket('udp4');
s.on('message', (m) => { console.log(JSON.stringify(m.toString('hex'))); process.exit(0); });
setTimeout(() => { console.log('null'); process.exit(0); }, 2000);
s.send(Buffer.from(datagram, 'hex'), port, host);
`;

describe("a device's reach through its relay", () => {
  let bed: Testbed;
  let relay: RelayHandle;
  let neighbour: string;
  let vpcUrl: string;
  let node: Node;
  /** The tunnel interface of each client host. */
  const tunnels = new Map<string, string>();

  beforeAll(async () => {
    bed = await Testbed.start();
    const authority = await startDnsAuthority(bed, 'dns', {
      wildcard: bed.net.host('echo').address,
    });
    // No network allowed on purpose: the VPC behind the uplink is private like any other.
    relay = await bed.addRelay('tokyo', 'asia-east', {
      ferry: true,
      dnsUpstream: authority.address,
      allowNetworks: [],
    });
    vpcUrl = await bed.startVpcEcho();
    // A service of the relay host on all its addresses.
    bed.net.spawn('tokyo', 'host-service', [
      process.execPath,
      '-e',
      service(HOST_SERVICE_PORT, 'relay host service'),
    ]);
    // A neighbour on the uplink's subnet that also holds the metadata address, which the relay
    // host reaches on its uplink as a cloud VM does.
    neighbour = bed.net.addAccessHost('neighbour').address;
    bed.net.exec('neighbour', ['ip', 'address', 'add', `${METADATA}/32`, 'dev', 'eth0']);
    bed.net.spawn('neighbour', 'metadata', [
      process.execPath,
      '-e',
      service(80, 'instance credentials'),
    ]);
    bed.net.exec('tokyo', ['ip', 'route', 'add', `${METADATA}/32`, 'dev', 'eth0']);

    const account = await bed.newAccount();
    const wgDevice = await bed.newDevice(account, 'wg');
    const wg = await bed.addClient('wg', wgDevice);
    await bed.connect(wg, { region: 'asia-east' });
    tunnels.set('wg', wg.interfaceName);
    const { interfaceName } = await bed.addFerryClient(
      'fy',
      await bed.newDevice(account, 'fy'),
      { region: 'asia-east' },
      'udp',
      { fwmark: CLIENT_MARK },
    );
    tunnels.set('fy', interfaceName);
    bed.net.exec('wg', ['wg', 'set', wg.interfaceName, 'fwmark', String(CLIENT_MARK)]);
    // Everything these tests try goes through the tunnel, as with a full tunnel: the relay's
    // own public address too, around which only the tunnel's own (marked) packets go.
    for (const [host, dev] of tunnels) {
      for (const address of [GATEWAY_IPV4, METADATA, neighbour])
        bed.net.exec(host, ['ip', 'route', 'replace', `${address}/32`, 'dev', dev]);
      throughTunnel(host, dev, relay.address, 90);
    }
    node = (await bed.control(wgDevice.token).listNodes()).nodes.find(
      (n) => n.id === relay.nodeId,
    )!;
  }, 120_000);
  afterAll(async () => bed?.stop(), 60_000);

  /** The body an HTTP GET from `host` gets, or undefined when nothing came back. */
  const get = (host: string, url: string, seconds = 2) => bed.echoFrom(host, seconds, url);

  /** Routes `address` through the host's tunnel, around which its own (marked) packets go. */
  const throughTunnel = (host: string, dev: string, address: string, table: number) => {
    bed.net.exec(host, ['ip', 'route', 'add', `${address}/32`, 'dev', dev, 'table', String(table)]);
    bed.net.exec(host, [
      'ip',
      'rule',
      'add',
      'not',
      'fwmark',
      String(CLIENT_MARK),
      'to',
      `${address}/32`,
      'lookup',
      String(table),
      'priority',
      String(table),
    ]);
  };

  it('the relay host itself reaches every one of them', () => {
    expect(get('tokyo', `http://${METADATA}/`)).toBe('instance credentials');
    expect(get('tokyo', `http://${neighbour}/`)).toBe('instance credentials');
    expect(get('tokyo', vpcUrl)).toBe(relay.address);
    expect(get('tokyo', `http://127.0.0.1:${HOST_SERVICE_PORT}/`)).toBe('relay host service');
  });

  describe.each(['wg', 'fy'])('from the %s device', (host) => {
    it('reaches the internet, DNS and ping on the gateway', async () => {
      try {
        await bed.net.waitFor(`${host} to reach the echo service`, 20_000, () =>
          get(host, bed.echoUrl) === relay.address ? true : undefined,
        );
      } catch (e) {
        throw new Error(`${(e as Error).message}\n${bed.diagnostics()}`);
      }
      for (const transport of ['udp', 'tcp'] as const) {
        const name = `${randomBytes(4).toString('hex')}.${TEST_ZONE}`;
        expect(queryFrom(bed, host, GATEWAY_IPV4, name, { transport })?.addresses).toEqual([
          bed.net.host('echo').address,
        ]);
      }
      // The engine's latency readout through a WireGuard tunnel is a ping of the gateway.
      bed.net.exec(host, [
        'ping',
        '-n',
        '-c',
        '1',
        '-W',
        '2',
        '-I',
        tunnels.get(host)!,
        GATEWAY_IPV4,
      ]);
    }, 60_000);

    it("does not reach the relay host's services, on the gateway or its public address", () => {
      expect({
        gateway: get(host, `http://${GATEWAY_IPV4}:${HOST_SERVICE_PORT}/`),
        public: get(host, `http://${relay.address}:${HOST_SERVICE_PORT}/`),
      }).toEqual({ gateway: undefined, public: undefined });
    });

    it('does not reach the metadata service, the uplink neighbour or the private network', () => {
      expect({
        metadata: get(host, `http://${METADATA}/`),
        neighbour: get(host, `http://${neighbour}/`),
        vpc: get(host, vpcUrl),
      }).toEqual({ metadata: undefined, neighbour: undefined, vpc: undefined });
    });
  });

  // The WireGuard device only: a Ferry device's probe gets no answer this way, before this
  // firewall as after it. The responder's wildcard socket answers from the gateway address,
  // which conntrack does not take for a reply, so the answer is not routed back through Ferry.
  it("answers the WireGuard device's latency probe on the relay's public address", () => {
    const key = Buffer.from(node.probe!.key, 'base64');
    const nonce = randomBytes(16);
    const datagram = Buffer.from(encodeProbeRequest(key, nonce, Date.now(), hmac)).toString('hex');
    const out = bed.net.exec('wg', [
      process.execPath,
      '-e',
      PROBE_ONCE,
      JSON.stringify({ host: relay.address, port: node.probe!.port, datagram }),
    ]);
    const answer = JSON.parse(out.trim()) as string | null;
    expect(answer).not.toBeNull();
    expect(Buffer.from(openProbeReply(Buffer.from(answer!, 'hex'), key, hmac)!)).toEqual(nonce);
  });

  describe('with the control plane on the relay host', () => {
    let osaka: RelayHandle;
    beforeAll(async () => {
      // The relay asks its control plane on loopback; the host serves it on all its addresses.
      const starting = bed.addRelay('osaka', 'global', {
        extraArgs: ['--control-url', `http://127.0.0.1:${LOCAL_CONTROL_PORT}`],
      });
      bed.net.spawn('osaka', 'control-plane-proxy', [
        process.execPath,
        '-e',
        CONTROL_PLANE_PROXY,
        JSON.stringify({ target: bed.controlUrl, ca: bed.caFile, port: LOCAL_CONTROL_PORT }),
      ]);
      bed.net.spawn('osaka', 'host-service', [
        process.execPath,
        '-e',
        service(HOST_SERVICE_PORT, 'relay host service'),
      ]);
      osaka = await starting;
      const client = await bed.addClient('wg2', await bed.newDevice(await bed.newAccount()));
      await bed.connect(client, { region: 'global' });
      bed.net.exec('wg2', ['wg', 'set', client.interfaceName, 'fwmark', String(CLIENT_MARK)]);
      throughTunnel('wg2', client.interfaceName, osaka.address, 90);
      await bed.net.waitFor('wg2 to reach the echo service through osaka', 20_000, () =>
        get('wg2', bed.echoUrl) === osaka.address ? true : undefined,
      );
    }, 120_000);

    it("reaches the control plane's port of the relay host, and no other", () => {
      const health = get('wg2', `http://${osaka.address}:${LOCAL_CONTROL_PORT}/api/v1/health`);
      expect(health).toContain(`"status":"ok"`);
      expect(get('wg2', `http://${osaka.address}:${HOST_SERVICE_PORT}/`)).toBeUndefined();
    });
  });

  describe('with the control plane by name, on the relay host and on a neighbour', () => {
    // A name, as a control plane served over https is reached (its certificate names it), with
    // an instance beside the relay and one on a neighbour on the uplink's subnet behind it.
    const NAME = 'ferry-control.test';
    let kyoto: RelayHandle;
    beforeAll(async () => {
      kyoto = await bed.addRelay('kyoto', 'eu-west');
      // The relay looks the name up at its start (the host's hosts file): started again with it.
      await kyoto.process.stop();
      bed.net.setEtcFile(
        'kyoto',
        'hosts',
        `127.0.0.1 localhost\n${kyoto.address} ${NAME}\n${neighbour} ${NAME}\n`,
      );
      kyoto.extraArgs = ['--control-url', `http://${NAME}:${LOCAL_CONTROL_PORT}`, '--insecure'];
      for (const host of ['kyoto', 'neighbour'])
        bed.net.spawn(host, 'control-plane-proxy', [
          process.execPath,
          '-e',
          CONTROL_PLANE_PROXY,
          JSON.stringify({ target: bed.controlUrl, ca: bed.caFile, port: LOCAL_CONTROL_PORT }),
        ]);
      bed.net.spawn('kyoto', 'host-service', [
        process.execPath,
        '-e',
        service(HOST_SERVICE_PORT, 'relay host service'),
      ]);
      await bed.startRelay('kyoto');
      const client = await bed.addClient(
        'wg3',
        await bed.newDevice(await bed.newAccount('premium')),
      );
      await bed.connect(client, { region: 'eu-west' });
      bed.net.exec('wg3', ['wg', 'set', client.interfaceName, 'fwmark', String(CLIENT_MARK)]);
      throughTunnel('wg3', client.interfaceName, kyoto.address, 90);
      bed.net.exec('wg3', [
        'ip',
        'route',
        'replace',
        `${neighbour}/32`,
        'dev',
        client.interfaceName,
      ]);
      await bed.net.waitFor('wg3 to reach the echo service through kyoto', 20_000, () =>
        get('wg3', bed.echoUrl) === kyoto.address ? true : undefined,
      );
    }, 120_000);

    it("reaches the control plane's port on the relay host and on the neighbour, and no other", () => {
      const health = (host: string) =>
        get('wg3', `http://${host}:${LOCAL_CONTROL_PORT}/api/v1/health`)?.includes(`"status":"ok"`);
      expect({
        onHost: health(kyoto.address),
        onNeighbour: health(neighbour),
        hostService: get('wg3', `http://${kyoto.address}:${HOST_SERVICE_PORT}/`),
        neighbourService: get('wg3', `http://${neighbour}/`),
      }).toEqual({
        onHost: true,
        onNeighbour: true,
        hostService: undefined,
        neighbourService: undefined,
      });
    });
  });
});
