// ferry-server --tls-cert/--tls-key: the API over HTTPS with the given certificate (a client
// that trusts its CA gets answers, one that does not is refused by its own TLS), the options
// checked at start, and a warning when plain HTTP is served beyond this machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCertificates, type TestCertificates } from './testing/test-certificates.js';
import { startServerProcess, SERVER_BIN } from './testing/server-process.js';
import { spawnSync } from 'node:child_process';

let dir: string;
let certs: TestCertificates;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ferry-tls-'));
  certs = makeTestCertificates(path.join(dir, 'tls'), ['127.0.0.1']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function serverRun(args: string[]) {
  return spawnSync(process.execPath, [SERVER_BIN, '--port', '0', ...args], {
    encoding: 'utf8',
    timeout: 15_000,
    env: { ...process.env, FERRY_LOG_LEVEL: 'info' },
  });
}

describe('the control plane over TLS', () => {
  it('serves its API over HTTPS with the certificate it is given', async () => {
    const server = await startServerProcess([
      '--data-dir',
      path.join(dir, 'data'),
      '--tls-cert',
      certs.certFile,
      '--tls-key',
      certs.keyFile,
    ]);
    try {
      expect(server.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const trusting = new Agent({ connect: { ca: [...rootCertificates, certs.ca] } });
      const health = await undiciFetch(`${server.baseUrl}/api/v1/health`, {
        dispatcher: trusting,
      });
      expect(await health.json()).toMatchObject({ status: 'ok' });
      await trusting.close();
      // A client that does not trust the CA stops at the handshake: nothing was sent.
      const untrusting = await undiciFetch(`${server.baseUrl}/api/v1/health`).then(
        () => 'answered',
        (e: Error & { cause?: { code?: string } }) => e.cause?.code,
      );
      expect(untrusting).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      // Plain HTTP to the TLS port gets no API answer.
      const plain = await undiciFetch(`${server.baseUrl.replace('https:', 'http:')}/api/v1/health`)
        .then((r) => r.status)
        .catch(() => 'no answer');
      expect(plain).not.toBe(200);
      expect(server.output()).toContain('"tls":true');
    } finally {
      await server.stop();
    }
  });

  it('refuses a certificate without its key, and a file it cannot read, at start', () => {
    const alone = serverRun(['--data-dir', path.join(dir, 'd1'), '--tls-cert', certs.certFile]);
    expect(alone.status).toBe(2);
    expect(alone.stdout + alone.stderr).toContain('--tls-cert and --tls-key go together');
    const missing = serverRun([
      '--data-dir',
      path.join(dir, 'd2'),
      '--tls-cert',
      path.join(dir, 'nope.pem'),
      '--tls-key',
      certs.keyFile,
    ]);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/--tls-cert.*cannot read it \(ENOENT\)/);
  });

  it('warns when it serves plain HTTP beyond this machine', async () => {
    const server = await startServerProcess([
      '--data-dir',
      path.join(dir, 'd3'),
      '--host',
      '0.0.0.0',
    ]);
    try {
      expect(server.output()).toContain('serving plain HTTP beyond this machine');
    } finally {
      await server.stop();
    }
  });
});
