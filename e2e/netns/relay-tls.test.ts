// A relay's TLS port is the cover site to whoever does not authenticate: from another host, the
// prober's probes (random bytes of several lengths, an HTTP request, a TLS hello for the cover
// site's name and an HTTPS request in it) get the answers the cover site itself gives, byte for
// byte (a Date header aside), with its certificate chain; an authentic client's first flight
// never reaches the cover site, the same flight replayed does; and the node list shows the port
// and the name the relay registered.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair } from '../../relay/keys.js';
import { startCoverSite, type CoverSite } from './censor/cover-site.js';
import { readPcapTcp, tcpStream, type TcpSegment } from './pcap.js';
import { Testbed } from './testbed.js';

const TLS_PORT = 8443;
const PROBER = 'prober';
const FERRY_TUN = path.join(import.meta.dirname, '..', '..', 'bin', 'ferry-tun');

/** Each TCP connection's payload in one direction, in the order the connections began. */
function streams(segments: readonly TcpSegment[], to: { dst: string; dport: number }): Buffer[] {
  const sources = new Set(
    segments.filter((s) => s.dst === to.dst && s.dport === to.dport).map((s) => s.sport),
  );
  return [...sources].map((sport) =>
    tcpStream(
      segments.filter((s) => s.dst === to.dst),
      { sport, dport: to.dport },
    ),
  );
}

/** Sends bytes on a TCP connection and prints what came back and how the connection ended. */
const PROBE = `
const [host, port, hex] = process.argv.slice(1);
const s = require('node:net').connect({ host, port: Number(port), allowHalfOpen: true });
const chunks = [];
let ended = 'open';
const done = () => {
  console.log(JSON.stringify({ data: Buffer.concat(chunks).toString('hex'), ended }));
  process.exit(0);
};
s.on('connect', () => s.write(Buffer.from(hex, 'hex')));
s.on('data', (c) => chunks.push(c));
s.on('end', () => { ended = 'fin'; done(); });
s.on('error', (e) => { ended = e.code; done(); });
setTimeout(done, 5000);
`;

describe('the TLS port of a relay, to a prober', () => {
  let bed: Testbed;
  let cover: CoverSite;
  let relay: string;
  beforeAll(async () => {
    bed = await Testbed.start();
    cover = await startCoverSite(bed.net, { serverName: 'cover.example' });
    const r = await bed.addRelay('tokyo', 'asia-east', {
      ferry: true,
      tls: { port: TLS_PORT, cover },
    });
    relay = r.address;
    bed.net.addAccessHost(PROBER);
  }, 120_000);
  afterAll(async () => bed?.stop(), 60_000);

  /** The prober's answer from `address:port` to `bytes`, without a Date header's value. */
  function probe(address: string, port: number, bytes: Buffer) {
    const out = bed.net.exec(PROBER, [
      process.execPath,
      '-e',
      PROBE,
      address,
      String(port),
      bytes.toString('hex'),
    ]);
    const { data, ended } = JSON.parse(out) as { data: string; ended: string };
    const text = Buffer.from(data, 'hex')
      .toString('latin1')
      .replace(/\r\nDate: [^\r]*/i, '\r\nDate: -');
    return { text, ended };
  }

  const bothAnswers = (bytes: Buffer) => ({
    relay: probe(relay, TLS_PORT, bytes),
    cover: probe(cover.address, cover.port, bytes),
  });

  it('registers the port and the cover site’s name', async () => {
    const device = await bed.newDevice(await bed.newAccount());
    const { nodes } = await bed.control(device.token).listNodes({ query: { region: 'asia-east' } });
    expect(nodes[0]).toMatchObject({ tls_port: TLS_PORT, tls_server_name: 'cover.example' });
  });

  it.each([1, 200, 3000])('answers %i random bytes as the cover site does', (length) => {
    const bytes = randomBytes(length);
    const { relay: fromRelay, cover: fromCover } = bothAnswers(bytes);
    // How nginx ends a connection it refuses (FIN, or RST when unread bytes are still in its
    // socket) depends on when the bytes arrive: the cover site itself answers either way. The
    // relay's answer must be one the cover site gives (asked a few more times when it differs).
    const seen = [fromCover];
    for (let i = 0; i < 4 && !seen.some((c) => isDeepStrictEqual(c, fromRelay)); i++)
      seen.push(probe(cover.address, cover.port, bytes));
    expect(seen).toContainEqual(fromRelay);
  });

  it('answers an HTTP request as the cover site does', () => {
    const request = Buffer.from(
      'GET / HTTP/1.1\r\nHost: cover.example\r\nUser-Agent: curl/8.0\r\n\r\n',
    );
    const { relay: fromRelay, cover: fromCover } = bothAnswers(request);
    expect(fromCover.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(fromRelay).toEqual(fromCover);
  });

  it('hands a replayed authentic first flight to the cover site, and never the authentic one', async () => {
    const device = await bed.newDevice(await bed.newAccount());
    const { nodes } = await bed.control(device.token).listNodes({ query: { region: 'asia-east' } });
    const nodeKey = nodes[0]!.ferry_public_key!;
    // Any client that knows the node's key sends an authentic hello: the TLS layer checks the
    // node's key only (the Ferry handshake after it, with a key no device has, then fails).
    const keyFile = path.join(bed.net.dir, 'tls-client.key');
    writeFileSync(keyFile, generateKeyPair().privateKey, { mode: 0o600 });
    const atClient = path.join(bed.net.dir, 'tls-client.pcap');
    const atCover = path.join(bed.net.dir, 'tls-cover.pcap');
    const stopClientCapture = await bed.net.capture(
      PROBER,
      'eth0',
      `tcp dst port ${TLS_PORT}`,
      atClient,
    );
    const stopCoverCapture = await bed.net.capture(
      cover.host,
      'eth0',
      `tcp dst port ${cover.port}`,
      atCover,
    );
    const client = bed.net.spawn(PROBER, 'ferry-tun tls client', [
      process.execPath,
      FERRY_TUN,
      'client',
      '--interface',
      'fytls0',
      '--address',
      '10.77.0.2/24',
      '--server',
      `${relay}:${TLS_PORT}`,
      '--server-public-key',
      nodeKey,
      '--private-key',
      keyFile,
      '--transport',
      'tls',
      '--tls-server-name',
      'cover.example',
    ]);
    // Its first flight: one TLS handshake record, whole.
    const flight = await bed.net
      .waitFor('the client’s first flight', 15_000, () => {
        // tcpdump writes each packet as it passes (-U): the file can be read while it captures.
        let segments: TcpSegment[];
        try {
          segments = readPcapTcp(atClient);
        } catch {
          return undefined;
        }
        const [first] = streams(segments, { dst: relay, dport: TLS_PORT });
        if (first && first.length >= 5 && first.length >= 5 + first.readUInt16BE(3))
          return first.subarray(0, 5 + first.readUInt16BE(3));
        return undefined;
      })
      .catch((e: unknown) => {
        throw new Error(`${(e as Error).message}\n${client.output()}`);
      });
    await client.stop();
    await stopClientCapture();
    expect(flight[0]).toBe(0x16);

    const replayed = probe(relay, TLS_PORT, flight);
    // The cover site answered the replay as a TLS server does: a handshake record (or an alert).
    expect([0x15, 0x16]).toContain(replayed.text.charCodeAt(0));
    await stopCoverCapture();
    const atSite = streams(readPcapTcp(atCover), { dst: cover.address, dport: cover.port });
    // The relay's connections to the site: only the replay's, carrying the flight first.
    expect(atSite.filter((s) => s.length > 0)).toHaveLength(1);
    expect(atSite.find((s) => s.length > 0)!.subarray(0, flight.length)).toEqual(flight);
  }, 60_000);

  it('shows the cover site’s certificate chain, byte for byte, and its HTTPS answers', () => {
    const chain = (address: string, port: number) => {
      const out = bed.net.exec(
        PROBER,
        [
          'openssl',
          's_client',
          '-connect',
          `${address}:${port}`,
          '-servername',
          'cover.example',
          '-showcerts',
        ],
        '',
      );
      return out.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
    };
    const fromRelay = chain(relay, TLS_PORT);
    expect(fromRelay).toHaveLength(1);
    expect(fromRelay).toEqual(chain(cover.address, cover.port));
    expect(fromRelay[0]!.replace(/\s/g, '')).toBe(cover.certPem.trim().replace(/\s/g, ''));

    const https = (address: string, port: number) =>
      bed.net
        .exec(PROBER, [
          'curl',
          '-sk',
          '--http1.1',
          '-D',
          '-',
          '--resolve',
          `cover.example:${port}:${address}`,
          `https://cover.example:${port}/`,
        ])
        .replace(/\r\nDate: [^\r]*/i, '\r\nDate: -');
    const page = https(relay, TLS_PORT);
    expect(page).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(page).toContain('<title>cover.example</title>');
    expect(page).toBe(https(cover.address, cover.port));
  });
});
