// A relay's TLS port is the cover site to whoever does not authenticate: from another host, the
// prober's probes (random bytes of several lengths, an HTTP request, a TLS hello for the cover
// site's name and an HTTPS request in it) get the answers the cover site itself gives, byte for
// byte (a Date header aside), with its certificate chain; and the node list shows the port and
// the name the relay registered.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoverSite, type CoverSite } from './censor/cover-site.js';
import { Testbed } from './testbed.js';

const TLS_PORT = 8443;
const PROBER = 'prober';

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
      extraArgs: [
        '--tls-port',
        String(TLS_PORT),
        '--cover-site',
        `${cover.address}:${cover.port}`,
        '--tls-server-name',
        'cover.example',
      ],
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
    expect(fromRelay).toEqual(fromCover);
  });

  it('answers an HTTP request as the cover site does', () => {
    const request = Buffer.from(
      'GET / HTTP/1.1\r\nHost: cover.example\r\nUser-Agent: curl/8.0\r\n\r\n',
    );
    const { relay: fromRelay, cover: fromCover } = bothAnswers(request);
    expect(fromCover.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(fromRelay).toEqual(fromCover);
  });

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
