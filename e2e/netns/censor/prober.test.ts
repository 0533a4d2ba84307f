// The prober's observations and judgement on loopback servers: an HTTPS site compared with itself
// is the same, with another certificate it is not; a server that swallows every probe is a proxy.
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import https from 'node:https';
import net, { type AddressInfo, type Server } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { selfSignedCertificate } from '../../../platform/tls/testing/self-signed.js';
import { helloMessage } from './censor-test-kit.js';
import dgram from 'node:dgram';

import dnsPacket from 'dns-packet';

import {
  difference,
  findRealServer,
  httpHead,
  observe,
  probeSet,
  swallowsEverything,
} from './prober.js';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function listen(s: Server): Promise<number> {
  servers.push(s);
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  return (s.address() as AddressInfo).port;
}

async function httpsSite(name: string): Promise<{ port: number; der: Buffer }> {
  const pem = selfSignedCertificate(name);
  const s = https.createServer(pem, (_q, r) => {
    r.setHeader('x-site', name);
    r.end('hello');
  });
  return { port: await listen(s), der: Buffer.from(new X509Certificate(pem.cert).raw) };
}

describe('prober', () => {
  it('reads an HTTP head without its Date', () => {
    expect(httpHead('HTTP/1.1 400 Bad Request\r\nServer: x\r\nDate: now\r\n\r\nbody')).toEqual({
      status: 400,
      headers: [['server', 'x']],
    });
    expect(httpHead('SSH-2.0-x\r\n')).toBeUndefined();
  });

  it('finds a site the same as itself and not as one with another certificate', async () => {
    const a = await httpsSite('cover.example');
    const b = await httpsSite('cover.example');
    const first = Buffer.concat([Buffer.from([0x16, 3, 1, 0, 0]), helloMessage('cover.example')]);
    first.writeUInt16BE(first.length - 5, 3);
    const set = probeSet(first, 'cover.example');
    const [one, again, other] = await Promise.all([
      observe('127.0.0.1', a.port, set, 1500),
      observe('127.0.0.1', a.port, set, 1500),
      observe('127.0.0.1', b.port, set, 1500),
    ]);
    expect(one.tls.outcome).toBe('handshake');
    expect(Buffer.from(one.tls.chain[0]!, 'base64').equals(a.der)).toBe(true);
    expect(one.tls.http?.status).toBe(200);
    expect(one.tls.http?.headers).toContainEqual(['x-site', 'cover.example']);
    expect(swallowsEverything(one)).toBe(false);
    expect(difference(again, one)).toBeUndefined();
    expect(difference(other, one)).toBe('TLS: another certificate chain');
  });

  it('judges a server that answers no probe a proxy', async () => {
    const port = await listen(
      net.createServer((s) => s.on('data', () => undefined).on('error', () => undefined)),
    );
    const site = await httpsSite('cover.example');
    const set = probeSet(Buffer.from('preamble'), 'cover.example');
    const [silent, real] = await Promise.all([
      observe('127.0.0.1', port, set, 500),
      observe('127.0.0.1', site.port, set, 500),
    ]);
    expect(silent.raw.every((r) => r.bytes === 0 && r.ended === 'timeout')).toBe(true);
    expect(swallowsEverything(silent)).toBe(true);
    expect(difference(silent, real)).toMatch(/^replay: the endpoint silent, stays open/);
  });

  it("finds a name's real server in the test's map, else with its own resolver", async () => {
    const dns = dgram.createSocket('udp4');
    dns.on('message', (m, from) => {
      const q = dnsPacket.decode(m);
      const name = q.questions?.[0]?.name ?? '';
      const answers =
        name === 'cover.example' ? [{ type: 'A' as const, name, ttl: 60, data: '192.0.2.7' }] : [];
      dns.send(
        dnsPacket.encode({
          type: 'response',
          id: q.id,
          questions: q.questions,
          answers,
          flags: answers.length ? 0 : 3,
        }),
        from.port,
        from.address,
      );
    });
    await new Promise<void>((r) => dns.bind(0, '127.0.0.1', r));
    const resolver = `127.0.0.1:${dns.address().port}`;
    try {
      const map = { realServers: { 'cover.example': '198.51.100.1:8443' }, realResolver: resolver };
      expect(await findRealServer(map, 'cover.example', 443)).toBe('198.51.100.1:8443');
      const own = { realServers: {}, realResolver: resolver };
      expect(await findRealServer(own, 'cover.example', 443)).toBe('192.0.2.7:443');
      expect(await findRealServer(own, 'nowhere.example', 443)).toBeUndefined();
      expect(await findRealServer(own, undefined, 443)).toBeUndefined();
      expect(
        await findRealServer({ realServers: {}, realResolver: undefined }, 'cover.example', 443),
      ).toBeUndefined();
    } finally {
      dns.close();
    }
  });
});
