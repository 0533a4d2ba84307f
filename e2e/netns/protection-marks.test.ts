// The kill switch's allowances are the engine's own: while it holds without a tunnel (the error a
// failed connect leaves), the engine still reaches the control plane and the nodes' probe
// responders from its marked sockets, but any other process trying the same addresses and ports
// gets nothing out of eth0; DHCP leaves only to the link (broadcast, the link's subnet), never
// to an address elsewhere; netcli diagnose's reach of a node, the engine's own, gets out.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePacket } from './leak-watch.js';
import { readPcapIp } from './pcap.js';
import { PROBE_PORT, ProtectionBed } from './protection-kit.js';

/** Source ports the unmarked process sends from, to find its packets in the capture. */
const TCP_PORT = 40100;
const UDP_PORT = 40101;

/**
 * Run in the laptop's namespace: a plain process (no mark) tries the control plane over TCP,
 * a node's probe responder over UDP, and DHCP to a foreign address, to the LAN's gateway and
 * to the limited broadcast; prints how each ended (EPERM: the datagram was dropped on the way
 * out; timeout: no connection within 2 s).
 */
const UNMARKED = String.raw`
const net = require('node:net');
const dgram = require('node:dgram');
const [ctrl, ctrlPort, relay, probePort, abroad, gateway] = JSON.parse(process.argv[1]);
const tcp = () => new Promise((done) => {
  const s = net.connect({ host: ctrl, port: ctrlPort, localPort: ${TCP_PORT} });
  s.setTimeout(2000, () => { s.destroy(); done('timeout'); });
  s.once('connect', () => { s.destroy(); done('connected'); });
  s.once('error', (e) => done(e.code));
});
const udp = (from, to, port) => new Promise((done) => {
  const s = dgram.createSocket('udp4');
  s.once('error', (e) => { s.close(); done(e.code); });
  s.bind(from, () => {
    s.setBroadcast(true);
    s.send(Buffer.from('not the engine'), port, to, (e) => { s.close(); done(e ? e.code : 'sent'); });
  });
});
(async () => {
  const r = {};
  r.control = await tcp();
  r.probe = await udp(${UDP_PORT}, relay, probePort);
  r.dhcpAbroad = await udp(68, abroad, 67);
  r.dhcpGateway = await udp(68, gateway, 67);
  r.dhcpBroadcast = await udp(68, '255.255.255.255', 67);
  console.log(JSON.stringify(r));
})();
`;

describe('protection: the allowances are the engine’s own', () => {
  let p: ProtectionBed;
  const json = (...args: string[]) => p.laptop.json(...args);

  beforeAll(async () => {
    p = await ProtectionBed.start();
    p.setUp();
  }, 180_000);
  afterAll(async () => {
    await p?.stop();
  }, 60_000);

  it('an unmarked process gets no use of the control plane’s, the probes’ or DHCP’s allowances; the engine does', async () => {
    const net = p.bed.net;
    // The kill switch holds with no tunnel: a connect to silent nodes failed; the nodes are back.
    for (const r of p.relays) net.blackhole(r.host);
    const attempt = p.laptop.runAsync('connect', '--region', 'work');
    await p.killSwitchActive();
    expect((await attempt).code).not.toBe(0);
    await p.heal();
    expect(json('status')).toMatchObject({
      status: 'error',
      protection: { kill_switch: 'active' },
    });

    const ctrl = net.host('ctrl').address;
    const ctrlPort = Number(new URL(p.bed.controlUrl).port);
    const relay = p.relays[0]!.address;
    const abroad = p.foreign.targets.ping;
    const file = path.join(net.dir, 'allowances.pcap');
    const stopCapture = await net.capture('laptop', 'eth0', 'ip', file, { maxSeconds: 120 });
    let tried: Record<string, string>;
    try {
      // The engine's own calls and probes get through.
      json('account');
      const latency = json('latency-check', '--all', '--count', '2');
      expect(latency.results.length).toBe(p.relays.length);
      for (const r of latency.results) expect(r.loss).toBeLessThan(1);
      tried = JSON.parse(
        net.exec('laptop', [
          process.execPath,
          '-e',
          UNMARKED,
          JSON.stringify([ctrl, ctrlPort, relay, PROBE_PORT, abroad, net.accessGateway]),
        ]),
      ) as Record<string, string>;
    } finally {
      await stopCapture();
    }
    // A dropped SYN is sent again until the connect gives up; a dropped datagram fails at once.
    expect(tried).toEqual({
      control: 'timeout',
      probe: 'EPERM',
      dhcpAbroad: 'EPERM',
      dhcpGateway: 'sent',
      dhcpBroadcast: 'sent',
    });
    const packets = readPcapIp(file);
    const laptop = p.laptop.address;
    const out = packets.filter((x) => x.src === laptop || x.src === '0.0.0.0');
    // Nothing of the plain process left, but its DHCP to the link.
    expect(
      out.filter((x) => x.sport === TCP_PORT || x.sport === UDP_PORT).map(describePacket),
    ).toEqual([]);
    expect(out.filter((x) => x.dport === 67).map((x) => x.dst)).toEqual([
      net.accessGateway,
      '255.255.255.255',
    ]);
    // The engine's did.
    expect(out.some((x) => x.dst === ctrl && x.dport === ctrlPort)).toBe(true);
    expect(out.some((x) => x.dst === relay && x.dport === PROBE_PORT)).toBe(true);
    // The diagnostics' own reach of a node (its probe, a TCP connect to its Ferry port) are the
    // engine's sockets too: the kill switch lets them out.
    const report = JSON.parse(p.laptop.run('diagnose', '--json').stdout) as {
      checks: { id: string; verdict: string; summary: string }[];
    };
    for (const id of ['node-udp', 'node-tcp'])
      expect(
        report.checks.find((c) => c.id === id),
        id,
      ).toMatchObject({ verdict: 'ok' });
    p.laptop.human('disconnect');
  }, 120_000);
});
