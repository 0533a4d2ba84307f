// The browser ClientHello template the TLS transport copies (native/hello/*.json): its schema, its loader,
// and its compilation into the line form the native addon reads (docs/protocol.md, "TLS transport").
import { readFileSync } from 'node:fs';

import { z } from 'zod';

import shippedChrome from './hello/chrome.json' with { type: 'json' };

/** Where a GREASE value (RFC 8701) is drawn per connection; one value per slot and hello, as Chrome does. */
export const GREASE_SLOTS = ['cipher', 'group', 'ext1', 'ext2', 'version', 'sigalg'] as const;
export type GreaseSlot = (typeof GREASE_SLOTS)[number];

const slotToken = `\\{(?:${GREASE_SLOTS.join('|')})\\}`;
const hex16 = z.string().regex(/^[0-9a-f]{4}$/, 'four lower-case hex digits');
/** Hex bytes in which `{slot}` stands for that slot's two GREASE bytes. */
const hexWithGrease = z
  .string()
  .regex(new RegExp(`^(?:[0-9a-f]{2}|${slotToken})*$`), 'hex bytes and {slot} GREASE placeholders');
const extensionType = z
  .string()
  .regex(new RegExp(`^(?:[0-9a-f]{4}|${slotToken})$`), 'hex type or {slot}');

const extension = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('fixed'), type: extensionType, data: hexWithGrease }),
  z.object({ kind: z.literal('server_name'), type: z.literal('0000') }),
  z.object({
    kind: z.literal('key_share'),
    type: z.literal('0033'),
    /** In order: `{group}` (a GREASE share of one zero byte), `11ec` (X25519MLKEM768), `001d` (X25519). */
    shares: z.array(z.enum(['{group}', '11ec', '001d'])).min(1),
  }),
  z.object({
    kind: z.literal('ech_grease'),
    type: z.literal('fe0d'),
    kdf: hex16,
    aead: hex16,
    /** The payload length is one of these, drawn per connection. */
    payloadLengths: z.array(z.number().int().min(17).max(1024)).min(1),
  }),
]);

export const helloTemplateSchema = z
  .object({
    browser: z.string().min(1),
    version: z.string().min(1),
    capturedFrom: z.string().min(1),
    /** The JA4 fingerprint (FoxIO) of the browser's hello, computed from the captures. */
    ja4: z.string().regex(/^t13d\d{4}h2_[0-9a-f]{12}_[0-9a-f]{12}$/),
    recordVersion: hex16,
    legacyVersion: hex16,
    cipherSuites: hexWithGrease.refine(
      (s) => s.replace(/\{\w+\}/g, 'xxxx').length % 4 === 0,
      'whole suites',
    ),
    compression: z.string().regex(/^(?:[0-9a-f]{2})+$/),
    extensions: z.array(extension).min(1).max(64),
    /** `shuffle-all-but-grease`: every extension but the GREASE ones is shuffled per hello (Chrome since 110). */
    permutation: z.enum(['shuffle-all-but-grease', 'fixed']),
  })
  .strict()
  .refine(
    (t) => new Set(t.extensions.map((e) => e.type)).size === t.extensions.length,
    'an extension twice',
  )
  .refine((t) => t.extensions.some((e) => e.kind === 'key_share' && e.shares.includes('001d')), {
    message: 'the hello needs an X25519 key share (it carries the authentication)',
  })
  .refine(
    (t) => t.extensions.some((e) => e.kind === 'server_name'),
    'the hello needs a server_name',
  );

export type HelloTemplate = z.infer<typeof helloTemplateSchema>;

/**
 * The template shipped with Ferry, the current Chrome's (native/hello/chrome.json, bundled with the code so
 * that every build and the packaged app carry it), or the file at `path`; validated either way. Throws with
 * the first problem.
 */
export function loadHelloTemplate(path?: string): HelloTemplate {
  let raw: unknown = shippedChrome;
  if (path !== undefined) {
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new Error(`cannot read the ClientHello template ${path}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  const parsed = helloTemplateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `the ClientHello template ${path ?? 'hello/chrome.json'} is invalid: ${issue?.path.join('.')} ${issue?.message}`,
    );
  }
  return parsed.data;
}

/**
 * The line form the native addon parses (one item per line, space-separated; see tls-hello.h):
 * `record_version`, `legacy_version`, `cipher_suites`, `compression`, one `ext` line per extension in the
 * template's order, `permute`.
 */
export function compileHelloTemplate(t: HelloTemplate): string {
  const lines = [
    `record_version ${t.recordVersion}`,
    `legacy_version ${t.legacyVersion}`,
    `cipher_suites ${t.cipherSuites}`,
    `compression ${t.compression}`,
  ];
  for (const e of t.extensions) {
    switch (e.kind) {
      case 'fixed':
        lines.push(`ext ${e.type} fixed ${e.data}`.trimEnd());
        break;
      case 'server_name':
        lines.push(`ext ${e.type} server_name`);
        break;
      case 'key_share':
        lines.push(`ext ${e.type} key_share ${e.shares.join(' ')}`);
        break;
      case 'ech_grease':
        lines.push(`ext ${e.type} ech_grease ${e.kdf} ${e.aead} ${e.payloadLengths.join(' ')}`);
        break;
    }
  }
  lines.push(`permute ${t.permutation}`);
  return lines.join('\n') + '\n';
}
