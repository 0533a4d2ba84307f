// Test kit: a private CA of the test's own and a server certificate it signs, made by OpenSSL
// through scripts/setup/tls-cert.sh (what start.sh uses): for the control plane's TLS in tests.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../scripts/setup/tls-cert.sh',
);

export interface TestCertificates {
  /** The CA's certificate (PEM file): what clients are told to trust. */
  caFile: string;
  ca: string;
  /** The server's certificate and key (PEM files) for `names`. */
  certFile: string;
  keyFile: string;
}

/** Makes (or keeps) a CA in `dir` and a server certificate for `names` (IP addresses, DNS names). */
export function makeTestCertificates(dir: string, names: readonly string[]): TestCertificates {
  execFileSync('bash', [SCRIPT, dir, ...names], { stdio: ['ignore', 'ignore', 'pipe'] });
  const caFile = path.join(dir, 'ca.pem');
  return {
    caFile,
    ca: readFileSync(caFile, 'utf8'),
    certFile: path.join(dir, 'server.pem'),
    keyFile: path.join(dir, 'server.key'),
  };
}
