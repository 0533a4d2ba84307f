// The resolver every relay serves on its tunnel gateway address, end to end: a WireGuard device
// and a Ferry device resolve a name of the test zone through 10.64.0.1 over UDP and TCP, the
// zone's server sees the query come from the relay (never from the device), its whoami zone (the
// DNS leak check's) answers with the relay's address, one device's flood leaves the other its
// answers and reaches the zone at no more than the device's rate, and the relay's output holds
// neither the name nor the device's addresses.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_IPV4 } from '../../contracts/index.js';
import { DNS_DEFAULTS } from '../../relay/dns/forwarder.js';
import {
  queryFrom,
  startDnsAuthority,
  TEST_ZONE,
  WHOAMI_ZONE,
  type DnsAuthority,
} from './dns-authority.js';
import { Testbed, type RelayHandle } from './testbed.js';

/**
 * Run in a namespace: UDP queries for `<n>.flood.<zone>` to `server` from one socket, `perTick`
 * every 10 ms for `seconds`; prints how many it sent.
 */
const FLOOD = `
const { server, zone, seconds, perTick, dnsPacket: dnsPacketPath } = JSON.parse(process.argv[1]);
const dnsPacket = require(dnsPacketPath);
const s = require('node:dgram').createSocket('udp4');
s.on('error', () => {});
let n = 0;
const end = Date.now() + seconds * 1000;
const tick = () => {
  for (let i = 0; i < perTick; i++, n++)
    s.send(dnsPacket.encode({ type: 'query', id: n & 0xffff, flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ type: 'A', name: n + '.flood.' + zone }] }), 53, server);
  if (Date.now() < end) setTimeout(tick, 10);
  else { console.log(n); setTimeout(() => process.exit(0), 200); }
};
tick();
`;

describe("the resolver on a relay's gateway address", () => {
  let bed: Testbed;
  let authority: DnsAuthority;
  let relay: RelayHandle;
  /** Every name and device address the relay must not have written anywhere. */
  const secrets: string[] = [];
  beforeAll(async () => {
    bed = await Testbed.start();
    authority = await startDnsAuthority(bed, 'dns', {
      wildcard: bed.net.host('echo').address,
      records: { fixed: '198.51.100.7' },
      whoamiZone: WHOAMI_ZONE,
    });
    relay = await bed.addRelay('tokyo', 'asia-east', {
      ferry: true,
      dnsUpstream: authority.address,
    });
  }, 120_000);
  afterAll(async () => bed?.stop(), 60_000);

  const unique = (prefix = '') => `${prefix}${randomBytes(6).toString('hex')}.${TEST_ZONE}`;

  /** Resolves through the gateway from `host`, retrying while the tunnel comes up. */
  const resolve = async (host: string, name: string, transport: 'udp' | 'tcp' = 'udp') => {
    try {
      return await bed.net.waitFor(`${host} to resolve ${name} over ${transport}`, 20_000, () =>
        queryFrom(bed, host, GATEWAY_IPV4, name, { transport, timeoutMs: 1_000 }),
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${bed.diagnostics()}`);
    }
  };

  it('answers a WireGuard device over UDP and TCP, asking the zone from the relay', async () => {
    const device = await bed.newDevice(await bed.newAccount(), 'wg-dns');
    const client = await bed.addClient('laptop', device);
    const answer = await bed.connect(client, { region: 'asia-east' });
    expect(answer.tunnel.dns).toContain(GATEWAY_IPV4);
    bed.routeGateway(client);
    secrets.push(device.ipv4, bed.net.host('laptop').address);

    const name = unique();
    secrets.push(name);
    const udp = await resolve('laptop', name);
    expect(udp).toMatchObject({ rcode: 'NOERROR', truncated: false });
    expect(udp.addresses).toEqual([bed.net.host('echo').address]);
    expect(new Set(await authority.waitAsked(name))).toEqual(new Set([relay.address]));

    const overTcp = unique();
    secrets.push(overTcp);
    expect((await resolve('laptop', overTcp, 'tcp')).addresses).toEqual([
      bed.net.host('echo').address,
    ]);
    expect(new Set(await authority.waitAsked(overTcp))).toEqual(new Set([relay.address]));

    const fixed = await resolve('laptop', `fixed.${TEST_ZONE}`);
    expect(fixed.addresses).toEqual(['198.51.100.7']);

    // The whoami zone (netcli diagnose's DNS leak test): the answer is whoever asked the zone,
    // here the relay; the device's own address never reaches it.
    const whoami = `${randomBytes(6).toString('hex')}.${WHOAMI_ZONE}`;
    secrets.push(whoami);
    expect((await resolve('laptop', whoami)).addresses).toEqual([relay.address]);
    expect(new Set(await authority.waitAsked(whoami))).toEqual(new Set([relay.address]));

    // A large answer: truncated over UDP as the zone sent it, whole over TCP.
    const large = unique('tc-');
    secrets.push(large);
    expect(await resolve('laptop', large)).toMatchObject({ truncated: true, addresses: [] });
    expect((await resolve('laptop', large, 'tcp')).addresses).toEqual([
      bed.net.host('echo').address,
    ]);
    expect(new Set(await authority.waitAsked(large, 2))).toEqual(new Set([relay.address]));

    // The zone's refusal of a name outside it reaches the device as it is.
    expect(await resolve('laptop', 'outside.example')).toMatchObject({ rcode: 'REFUSED' });
  }, 90_000);

  it('answers a Ferry device through the Ferry tunnel', async () => {
    const device = await bed.newDevice(await bed.newAccount(), 'ferry-dns');
    const { answer, interfaceName } = await bed.addFerryClient('fdns', device, {
      region: 'asia-east',
    });
    expect(answer.tunnel.dns).toContain(GATEWAY_IPV4);
    bed.net.exec('fdns', ['ip', 'route', 'replace', `${GATEWAY_IPV4}/32`, 'dev', interfaceName]);
    secrets.push(device.ipv4, bed.net.host('fdns').address);

    for (const transport of ['udp', 'tcp'] as const) {
      const name = unique();
      secrets.push(name);
      const got = await resolve('fdns', name, transport);
      expect(got.addresses).toEqual([bed.net.host('echo').address]);
      expect(new Set(await authority.waitAsked(name))).toEqual(new Set([relay.address]));
    }
  }, 90_000);

  it("answers a device while another floods the resolver, and passes the flood on at the flooder's rate", async () => {
    const seconds = 4;
    const flood = bed.net.spawn('laptop', 'dns-flood', [
      process.execPath,
      '-e',
      FLOOD,
      JSON.stringify({
        server: GATEWAY_IPV4,
        zone: TEST_ZONE,
        seconds,
        perTick: 20,
        dnsPacket: createRequire(import.meta.url).resolve('dns-packet'),
      }),
    ]);
    const names = Array.from({ length: 15 }, () => unique());
    secrets.push(...names);
    // Each name asked as a system's stub asks (resolv.conf's default: a second attempt when the
    // first gets no answer): a device the flood starves gets neither, one answer lost on a
    // loaded machine (a CI run met it) is asked again.
    const answers = names.map((name) => {
      for (let attempt = 0; attempt < 2; attempt++) {
        const got = queryFrom(bed, 'fdns', GATEWAY_IPV4, name, { timeoutMs: 2_000 });
        if (got) return got.addresses[0];
      }
      return undefined;
    });
    expect(await flood.exited).toBe(0);
    const sent = Number(flood.output().trim());
    expect(answers).toEqual(names.map(() => bed.net.host('echo').address));
    // About 2,000 a second sent; the zone saw the flooder's own rate and burst at most.
    expect(sent).toBeGreaterThan(1_000 * seconds);
    await new Promise((r) => setTimeout(r, 1_000));
    const forwarded = authority.askersUnder(`flood.${TEST_ZONE}`).length;
    expect(forwarded).toBeGreaterThan(DNS_DEFAULTS.clientQueriesPerSecond);
    expect(forwarded).toBeLessThanOrEqual(
      DNS_DEFAULTS.clientBurst + DNS_DEFAULTS.clientQueriesPerSecond * (seconds + 1),
    );
  }, 60_000);

  it('writes no name asked and no device address', () => {
    expect(secrets.length).toBeGreaterThan(0);
    const output = relay.process.output();
    expect(output).toContain('DNS resolver up');
    for (const s of secrets) expect(output).not.toContain(s);
  });
});
