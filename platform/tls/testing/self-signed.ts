// Test code: a self-signed certificate and key made by OpenSSL, for the tests of every room that
// needs one (a CA bundle, a cover site).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A self-signed certificate and key for `name` (P-256), PEM. */
export function selfSignedCertificate(name: string): { cert: string; key: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
        '-addext',
        `subjectAltName=DNS:${name}`,
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
      key: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
