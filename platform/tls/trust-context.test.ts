// trustContext: one context per CA bundle, made once; none without a bundle.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { trustContext } from './trust-context.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ferry-trust-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh self-signed CA certificate (PEM), made by OpenSSL. */
function ca(name: string): string {
  const cert = path.join(dir, `${name}.pem`);
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
      '-keyout',
      path.join(dir, `${name}.key`),
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
    ],
    { stdio: 'ignore' },
  );
  return readFileSync(cert, 'utf8');
}

describe('trustContext', () => {
  it('gives none without a bundle, and one context per bundle, made once', () => {
    expect(trustContext(null)).toBeUndefined();
    const a = ca('a');
    const first = trustContext(a);
    expect(first).toBeDefined();
    expect(trustContext(a)).toBe(first);
    const other = trustContext(ca('b'));
    expect(other).toBeDefined();
    expect(other).not.toBe(first);
  });
});
