// How the engine trusts its control plane: plain HTTP on the network only with the user's
// consent (and then said in the status), CA certificates checked before they are kept and given
// to the transport, and the transport's real TLS: a server of an unknown CA or another name is
// refused before anything is sent.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, createControlClient } from '../contracts/index.js';
import { injectFetch } from '../server/testing/inject-fetch.js';
import { startControlPlane } from '../server/testing/control-plane-harness.js';
import {
  makeTestCertificates,
  type TestCertificates,
} from '../server/testing/test-certificates.js';
import { createControlTransport } from './control-transport.js';
import { describeServiceCa } from './service-trust.js';
import { EngineFixture } from './testing/engine-fixture.js';
import { engineRefusal, refusal } from './testing/refusal.js';

let dir: string;
let certs: TestCertificates;
let trusted: (string | null)[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ferry-trust-'));
  certs = makeTestCertificates(path.join(dir, 'tls'), ['127.0.0.1']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fx = new EngineFixture({
  prefix: 'ferry-trust-engine-',
  startControlPlane: () => startControlPlane('sqlite'),
  fetchOf: (h) => injectFetch(h.plane.app),
  engine: { trustServiceCa: (pem) => trusted.push(pem) },
});

describe('the engine and its service’s URL', () => {
  beforeAll(() => fx.startControlPlane());
  afterAll(() => fx.closeControlPlane());
  beforeEach(() => {
    trusted = [];
    return fx.start();
  });
  afterEach(() => fx.stop());

  it('refuses plain http to a service on the network, and keeps what it had', async () => {
    await fx.engine.init({ endpoint: 'https://ferry.example' });
    const e = await refusal(fx.engine.init({ endpoint: 'http://ferry.example/api/v1' }));
    expect(e.code).toBe('config-invalid');
    expect(e.errors).toEqual([expect.objectContaining({ field: 'service' })]);
    expect((await fx.engine.getConfig()).service).toBe('https://ferry.example');
    const set = await refusal(fx.engine.setConfigKey('service', 'http://10.1.2.3:8080'));
    expect(set.code).toBe('config-invalid');
    expect(fx.engine.status().service_insecure).toBe(false);
  });

  it('takes plain http when the user accepts the risk, and says so in the status', async () => {
    const init = await fx.engine.init({ endpoint: 'http://control-plane.test', insecure: true });
    expect(init.config).toMatchObject({
      service: 'http://control-plane.test',
      service_insecure: true,
    });
    expect(fx.engine.status().service_insecure).toBe(true);
    // The calls go through (the fixture's control plane answers in process).
    expect((await fx.engine.createAccount({})).account_number).toMatch(/^\d{16}$/);
    // The consent was for that service: config set to another plain http one is refused.
    expect((await refusal(fx.engine.setConfigKey('service', 'http://10.6.6.6'))).code).toBe(
      'config-invalid',
    );
    // A new init without --insecure is a new statement: plain http is refused again.
    expect((await refusal(fx.engine.init({ endpoint: 'http://control-plane.test' }))).code).toBe(
      'config-invalid',
    );
    // And https clears the warning.
    await fx.engine.init({ endpoint: 'https://control-plane.test' });
    expect(fx.engine.status().service_insecure).toBe(false);
  });

  it('never uses a plain http URL left in the file from before without consent', async () => {
    await fx.engine.init({ endpoint: 'https://control-plane.test' });
    await fx.engine.shutdown();
    await writeFile(
      path.join(fx.stateDir, 'config.json'),
      JSON.stringify({ service: 'http://control-plane.test' }),
    );
    const engine = await fx.restart();
    const e = await engineRefusal(engine.createAccount({}));
    expect(e.code).toBe('service-insecure');
  });

  it('keeps CA certificates only when they are certificates, and gives them to the transport', async () => {
    const forged =
      '-----BEGIN CERTIFICATE-----\nTm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n';
    const bad = await refusal(fx.engine.init({ endpoint: 'https://ferry.example', ca: forged }));
    expect(bad.code).toBe('config-invalid');
    expect(bad.errors?.[0]).toMatchObject({ field: 'service_ca' });
    expect(bad.message).not.toContain('Tm90');

    const init = await fx.engine.init({ endpoint: 'https://ferry.example', ca: certs.ca });
    expect(init.config.service_ca).toBe(certs.ca);
    expect(trusted.at(-1)).toBe(certs.ca);
    expect(describeServiceCa(certs.ca)).toMatch(/^CN=Ferry private CA .* \(SHA-256 [0-9A-F:]+…\)$/);
    // Kept across a restart (the file), and dropped by an init without one.
    await fx.restart();
    expect(trusted.at(-1)).toBe(certs.ca);
    await fx.engine.init({ endpoint: 'https://ferry.example' });
    expect(trusted.at(-1)).toBeNull();
    // A CA given for one service is not trusted for another one set later.
    await fx.engine.init({ endpoint: 'https://ferry.example', ca: certs.ca });
    const moved = await fx.engine.setConfigKey('service', 'https://elsewhere.example');
    expect(moved.changed).toEqual(['service', 'service_ca']);
    expect(moved.config.service_ca).toBeNull();
    expect(trusted.at(-1)).toBeNull();
  });
});

describe('the control transport’s TLS', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer(
      { cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) },
      (_req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ status: 'ok', version: '0.1.0', api: 'v1' }));
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('resumes its TLS session on the next connection, never across a change of trust', async () => {
    const reused: boolean[] = [];
    const onSecure = (socket: TLSSocket) => reused.push(socket.isSessionReused());
    server.on('secureConnection', onSecure);
    const transport = createControlTransport({ ca: certs.ca });
    try {
      await health(transport.fetch, '127.0.0.1');
      transport.reset(); // the pool dropped, as at every change of the routes
      await health(transport.fetch, '127.0.0.1');
      // The same CA once more, in another text: other trust, so a full handshake again.
      transport.trust(`${certs.ca}\n`);
      await health(transport.fetch, '127.0.0.1');
      expect(reused).toEqual([false, true, false]);
    } finally {
      server.off('secureConnection', onSecure);
      await transport.close();
    }
  });

  const health = (fetch: ReturnType<typeof createControlTransport>['fetch'], host: string) =>
    createControlClient({ baseUrl: `https://${host}:${port}`, fetch, timeoutMs: 5_000 }).health();

  it('refuses a server its CA does not vouch for, then trusts the CA it is given', async () => {
    const transport = createControlTransport();
    try {
      const unknown = await health(transport.fetch, '127.0.0.1').catch((e: unknown) => e);
      expect(unknown).toBeInstanceOf(ApiError);
      expect(unknown).toMatchObject({ code: 'untrusted-certificate' });
      transport.trust(certs.ca);
      expect(await health(transport.fetch, '127.0.0.1')).toMatchObject({ status: 'ok' });
      // The CA vouches for 127.0.0.1 only: the same server under another name is refused.
      const otherName = await health(transport.fetch, 'localhost').catch((e: unknown) => e);
      expect(otherName).toMatchObject({ code: 'untrusted-certificate' });
      expect((otherName as ApiError).detail).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
      // Taking the trust back holds for the next call.
      transport.trust(null);
      expect(await health(transport.fetch, '127.0.0.1').catch((e: unknown) => e)).toMatchObject({
        code: 'untrusted-certificate',
      });
    } finally {
      await transport.close();
    }
  });
});
