// PEM certificates as text: the certificate blocks of a bundle, found in one linear pass (no
// backtracking a crafted file could make slow), and whether a text is nothing but such blocks.
// Parsing the certificates themselves is for the holders of X.509 (engine, relay), not here.

/** The most certificates a private service's CA bundle may hold. */
export const MAX_CA_CERTIFICATES = 32;

// '-' is not in the body's class: each block ends at its first END line, whatever follows.
const BLOCK = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----/g;

/** The certificate blocks of a text (a bundle may hold comments and other PEM between them). */
export function certificateBlocks(text: string): string[] {
  return text.match(BLOCK) ?? [];
}

/** Whether a text is 1..MAX_CA_CERTIFICATES certificate blocks and whitespace, nothing else. */
export function isCertificateBundle(text: string): boolean {
  const blocks = certificateBlocks(text);
  return (
    blocks.length > 0 &&
    blocks.length <= MAX_CA_CERTIFICATES &&
    text.replace(BLOCK, '').trim() === ''
  );
}
