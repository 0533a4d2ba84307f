// The engine's transport to the control plane, for real on loopback (root, as the engine runs):
// every call goes out from a socket with the engine's mark (the kill switch lets the control plane
// out only for it), https is verified against the system's roots plus the configured CA with the
// host name checked, and a socket that cannot be marked fails the call rather than go unmarked.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { createControlTransport, type ControlTransport } from './control-transport.js';
import { CONTROL_FWMARK } from './protection/firewall-policy.js';

/** The mark of the local socket with this port (ss -e), or undefined. */
function markOf(localPort: number): string | undefined {
  const out = execFileSync('ss', ['-tane', `sport = :${localPort}`], { encoding: 'utf8' });
  return /fwmark:(0x[0-9a-f]+)/.exec(out)?.[1];
}

/** A CA and a certificate it signs for `names` (DNS names, IP addresses), with OpenSSL. */
function certificates(dir: string, names: readonly string[]) {
  const run = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  const f = (name: string) => path.join(dir, name);
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  run([
    ...['req', '-x509', ...key, '-days', '2', '-subj', '/CN=Ferry test CA'],
    ...['-keyout', f('ca.key'), '-out', f('ca.pem')],
    ...['-addext', 'basicConstraints=critical,CA:TRUE'],
    ...['-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
  ]);
  run(
    ['req', '-new', ...key, '-subj', `/CN=${names[0]}`, '-keyout', f('server.key')].concat([
      '-out',
      f('server.csr'),
    ]),
  );
  const san = names.map((n) => (/^[\d.]+$/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  writeFileSync(f('server.ext'), `subjectAltName=${san}\n`);
  run([
    ...['x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key')],
    ...['-CAcreateserial', '-days', '2', '-out', f('server.pem'), '-extfile', f('server.ext')],
  ]);
  return { ca: readFileSync(f('ca.pem'), 'utf8'), key: f('server.key'), cert: f('server.pem') };
}

const servers: Server[] = [];
const transports: ControlTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  for (const s of servers.splice(0)) s.close();
});

/** A server answering with the client's port, listening on `host`; its base URL. */
function listen(server: Server, host: string, scheme: 'http' | 'https'): Promise<string> {
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      resolve(`${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`);
    }),
  );
}
const answerPort = (q: { socket: { remotePort?: number } }, s: { end(x: string): void }) =>
  s.end(String(q.socket.remotePort));

function transport(options: Parameters<typeof createControlTransport>[0] = {}): ControlTransport {
  const t = createControlTransport(options);
  transports.push(t);
  return t;
}

describe('the control transport', () => {
  for (const host of ['127.0.0.1', '::1']) {
    it(`calls ${host} over http from a socket with the engine’s mark`, async () => {
      const base = await listen(createHttpServer(answerPort), host, 'http');
      const answer = await transport().fetch(`${base}/api/v1/health`, { method: 'GET' });
      const clientPort = Number(await answer.text());
      expect(markOf(clientPort)).toBe(`0x${CONTROL_FWMARK.toString(16)}`);
    });
  }

  it('resolves a host name itself and connects the marked socket to its address', async () => {
    const base = await listen(createHttpServer(answerPort), '127.0.0.1', 'http');
    const answer = await transport().fetch(base.replace('127.0.0.1', 'localhost'), {
      method: 'GET',
    });
    expect(markOf(Number(await answer.text()))).toBe('0x6667');
  });

  it('fails the call, never goes unmarked, when the socket cannot be marked', async () => {
    let connections = 0;
    const server = createHttpServer(answerPort);
    server.on('connection', () => connections++);
    const base = await listen(server, '127.0.0.1', 'http');
    const cannot = () => {
      throw Object.assign(new Error('cannot set the socket mark: Operation not permitted'), {
        code: 'ERR_FERRY_MARK',
      });
    };
    const unmarkable = await transport({ openSocket: cannot })
      .fetch(base, { method: 'GET' })
      .catch((e: unknown) => e as Error & { cause?: { code?: string } });
    expect(unmarkable).toBeInstanceOf(Error);
    expect((unmarkable as { cause?: { code?: string } }).cause?.code).toBe('ERR_FERRY_MARK');
    expect(connections).toBe(0);
  });

  describe('https', () => {
    let dir: string;
    let certs: ReturnType<typeof certificates>;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'ferry-transport-'));
      certs = certificates(dir, ['localhost']);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const httpsServer = () =>
      createHttpsServer(
        { key: readFileSync(certs.key), cert: readFileSync(certs.cert) },
        answerPort,
      ) as unknown as Server;

    it('verifies the certificate against the configured CA and the host name, marked', async () => {
      const base = await listen(httpsServer(), '127.0.0.1', 'https');
      const answer = await transport({ ca: certs.ca }).fetch(
        base.replace('127.0.0.1', 'localhost'),
        { method: 'GET' },
      );
      expect(markOf(Number(await answer.text()))).toBe('0x6667');
    });

    it('refuses a certificate of another CA, or of another name', async () => {
      const base = await listen(httpsServer(), '127.0.0.1', 'https');
      const code = (e: unknown) => (e as { cause?: { code?: string } }).cause?.code;
      // The system's roots alone do not know the test CA.
      const untrusted = await transport()
        .fetch(base.replace('127.0.0.1', 'localhost'), { method: 'GET' })
        .catch((e: unknown) => e);
      expect(code(untrusted)).toMatch(/CERT|SIGNATURE|ISSUER/);
      // The name the URL gives is checked: the certificate is for localhost, not 127.0.0.1.
      const other = await transport({ ca: certs.ca })
        .fetch(base, { method: 'GET' })
        .catch((e: unknown) => e);
      expect(code(other)).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    });

    it('follows a change of the CA, dropping connections made under the old trust', async () => {
      const base = (await listen(httpsServer(), '127.0.0.1', 'https')).replace(
        '127.0.0.1',
        'localhost',
      );
      const t = transport();
      await expect(t.fetch(base, { method: 'GET' })).rejects.toThrow();
      t.trust(certs.ca);
      expect((await t.fetch(base, { method: 'GET' })).status).toBe(200);
      t.trust(null);
      await expect(t.fetch(base, { method: 'GET' })).rejects.toThrow();
    });
  });
});
