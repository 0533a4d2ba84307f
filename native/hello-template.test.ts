// Tests of the ClientHello template: the shipped file is valid, matches the real Chrome captures beside it,
// and compiles to the line form the addon reads; the capture's derivation notices what it cannot copy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { deriveTemplate } from './capture-chrome-hello.js';
import { ja4 } from './ja4.js';
import { isGrease, parseClientHello } from './client-hello.js';
import { compileHelloTemplate, helloTemplateSchema, loadHelloTemplate } from './hello-template.js';

const dir = join(import.meta.dirname, 'hello');
const captures = readFileSync(join(dir, 'chrome-captures.txt'), 'utf8')
  .trim()
  .split('\n')
  .map((h) => parseClientHello(Buffer.from(h, 'hex')));

describe('the Chrome ClientHello template', () => {
  const template = loadHelloTemplate(join(dir, 'chrome.json'));

  it('is what the captures beside it say (all but the order of the shuffled extensions)', () => {
    const again = deriveTemplate(captures, template.browser, template.version);
    const key = (t: typeof template) => ({
      ...t,
      capturedFrom: '',
      extensions: [...t.extensions].sort((a, b) => a.type.localeCompare(b.type)),
    });
    expect(key(again)).toEqual(key(template));
    expect(template.permutation).toBe('shuffle-all-but-grease');
  });

  it('pins the JA4 that each captured hello has', () => {
    for (const h of captures) expect(ja4(h)).toBe(template.ja4);
    expect(template.ja4.startsWith('t13d1517h2_8daaf6152771_')).toBe(true);
  });

  it('captures a shuffled order with GREASE first and last, and distinct GREASE per connection', () => {
    const orders = new Set(captures.map((h) => h.extensions.map((e) => e.type).join(',')));
    expect(orders.size).toBe(captures.length);
    for (const h of captures) {
      expect(isGrease(h.extensions[0]!.type) && isGrease(h.extensions.at(-1)!.type)).toBe(true);
      expect(h.extensions[0]!.type).not.toBe(h.extensions.at(-1)!.type);
      expect(h.sessionId).toHaveLength(32);
    }
  });

  it('compiles to one line per item, in the template order', () => {
    const lines = compileHelloTemplate(template).trim().split('\n');
    expect(lines[0]).toBe('record_version 0301');
    expect(lines).toContain('ext 0033 key_share {group} 11ec 001d');
    expect(lines).toContain('ext fe0d ech_grease 0001 0001 144 176 208 240');
    expect(lines).toContain('ext 0000 server_name');
    expect(lines.filter((l) => l.startsWith('ext '))).toHaveLength(template.extensions.length);
    expect(lines.at(-1)).toBe('permute shuffle-all-but-grease');
  });

  it('refuses a template without an X25519 share, with a bad placeholder, or an extension twice', () => {
    const noX25519 = structuredClone(template);
    noX25519.extensions = noX25519.extensions.map((e) =>
      e.kind === 'key_share' ? { ...e, shares: ['11ec' as const] } : e,
    );
    expect(helloTemplateSchema.safeParse(noX25519).success).toBe(false);
    const badSlot = { ...template, cipherSuites: '{nope}1301' };
    expect(helloTemplateSchema.safeParse(badSlot).success).toBe(false);
    const twice = { ...template, extensions: [...template.extensions, template.extensions[1]] };
    expect(helloTemplateSchema.safeParse(twice).success).toBe(false);
    expect(() => loadHelloTemplate(join(dir, 'missing.json'))).toThrow(
      /cannot read the ClientHello template/,
    );
  });

  it('refuses to derive a template when a fixed field varies between captures', () => {
    const [a, b, c] = captures;
    const altered = {
      ...c!,
      extensions: c!.extensions.map((e) =>
        e.type === 0x002d ? { ...e, data: Buffer.from('0100', 'hex') } : e,
      ),
    };
    expect(() => deriveTemplate([a!, b!, altered], 'x', '1')).toThrow(/extension 002d/);
  });
});

describe('parseClientHello', () => {
  it('refuses what is not a whole ClientHello record', () => {
    const raw = Buffer.from(
      readFileSync(join(dir, 'chrome-captures.txt'), 'utf8').split('\n')[0]!,
      'hex',
    );
    expect(parseClientHello(raw).recordLength).toBe(raw.length);
    expect(() => parseClientHello(raw.subarray(0, raw.length - 1))).toThrow(/truncated/);
    expect(() => parseClientHello(Buffer.from('GET / HTTP/1.1\r\n\r\n'))).toThrow(
      /not a TLS handshake/,
    );
    const wrongLen = Buffer.from(raw);
    wrongLen.writeUInt16BE(wrongLen.readUInt16BE(3) - 1, 3);
    expect(() => parseClientHello(wrongLen)).toThrow();
  });
});
