// Certificate bundles as text: the blocks found, what else a bundle may not hold, and a crafted
// text checked at once (a backtracking pattern took minutes on a kilobyte and froze the engine).
import { describe, expect, it } from 'vitest';
import { certificateBlocks, isCertificateBundle, MAX_CA_CERTIFICATES } from './pem.js';

const block = (body = 'MIIBszCCAVmgAwIBAgIU') =>
  `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----`;

describe('certificate bundles', () => {
  it('finds each block, and takes only bundles of blocks and whitespace', () => {
    const two = `${block()}\n\n${block('QUJD')}\n`;
    expect(
      certificateBlocks(`# ours\n${two}-----BEGIN PRIVATE KEY-----\nAA\n-----END PRIVATE KEY-----`),
    ).toEqual([block(), block('QUJD')]);
    expect(isCertificateBundle(two)).toBe(true);
    expect(isCertificateBundle(`# ours\n${two}`)).toBe(false);
    expect(isCertificateBundle('')).toBe(false);
    expect(isCertificateBundle(block('not base64!'))).toBe(false);
    const many = Array.from({ length: MAX_CA_CERTIFICATES + 1 }, () => block()).join('\n');
    expect(isCertificateBundle(many)).toBe(false);
  });

  it('checks a crafted 64 KiB text at once', { timeout: 2_000 }, () => {
    // Blocks with whitespace between them and a bad character at the end: a pattern that can
    // split the whitespace between rounds tries every split before it says no.
    const crafted = `${Array.from({ length: 1_000 }, () => block()).join('   ')}!`.slice(
      0,
      64 * 1024,
    );
    expect(isCertificateBundle(crafted)).toBe(false);
  });
});
