// How the engine trusts its control plane's TLS: the extra CA certificates a user gives
// (netcli init --ca-file), checked to be certificates before they are kept.
import { X509Certificate } from 'node:crypto';

import { certificateBlocks } from '../contracts/index.js';
import { FerryError } from './errors.js';

/**
 * Throws config-invalid unless every block of `pem` is an X.509 certificate that has not
 * expired: a CA's, or a self-signed server certificate given as its own anchor (Node trusts
 * either). The message never quotes the text.
 */
export function checkServiceCa(pem: string): void {
  const blocks = certificateBlocks(pem);
  const refuse = (why: string) =>
    new FerryError('config-invalid', `service_ca: ${why}`, {
      errors: [{ field: 'service_ca', message: `service_ca: ${why}` }],
    });
  if (blocks.length === 0) throw refuse('no PEM certificate in it');
  const now = Date.now();
  for (const block of blocks) {
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(block);
    } catch {
      throw refuse('a block is not a valid X.509 certificate');
    }
    if (Date.parse(cert.validTo) < now)
      throw refuse(`a certificate expired on ${new Date(cert.validTo).toISOString().slice(0, 10)}`);
  }
}

/** Words for a kept CA (netcli config list): the first certificate's subject and fingerprint. */
export function describeServiceCa(pem: string): string {
  const blocks = certificateBlocks(pem);
  if (blocks.length === 0) return 'none';
  let name: string;
  try {
    const cert = new X509Certificate(blocks[0]!);
    name = `${cert.subject.replace(/\n/g, ', ')} (SHA-256 ${cert.fingerprint256.slice(0, 23)}…)`;
  } catch {
    name = 'an unreadable certificate';
  }
  return blocks.length > 1 ? `${name} and ${blocks.length - 1} more` : name;
}
