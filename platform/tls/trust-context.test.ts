// trustContext: one context per CA bundle, made once; none without a bundle.
import { describe, expect, it } from 'vitest';

import { selfSignedCertificate } from './testing/self-signed.js';
import { trustContext } from './trust-context.js';

/** A fresh self-signed certificate (PEM) standing for a CA. */
const ca = (name: string): string => selfSignedCertificate(name).cert;

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
