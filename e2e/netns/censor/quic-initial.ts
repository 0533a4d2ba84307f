// QUIC version 1 Initial packets as an on-path censor reads them (RFC 9000, RFC 9001 section 5):
// the Initial keys follow from the Destination Connection ID alone, so anyone can remove the
// header protection, decrypt the payload and read the ClientHello in its CRYPTO frames. That is
// what China's censor does since April 2024 (USENIX Security 2025). Also seals Initials, for
// tests that need a client's first datagram without a QUIC stack.
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';

import { parseHandshake, type ClientHello } from '../../../native/client-hello.js';

const INITIAL_SALT_V1 = Buffer.from('38762cf7f55934b34d179ae6a4c80cadccbb7f0a', 'hex');

/** HKDF-Expand-Label of TLS 1.3 (RFC 8446 7.1) with SHA-256, for outputs of at most 32 bytes. */
function expandLabel(secret: Buffer, label: string, length: number): Buffer {
  const full = Buffer.from(`tls13 ${label}`, 'latin1');
  const info = Buffer.concat([
    Buffer.from([length >> 8, length & 0xff, full.length]),
    full,
    Buffer.from([0]),
  ]);
  return createHmac('sha256', secret)
    .update(Buffer.concat([info, Buffer.from([1])]))
    .digest()
    .subarray(0, length);
}

export interface InitialKeys {
  key: Buffer;
  iv: Buffer;
  hp: Buffer;
}

/** The client's Initial keys for a Destination Connection ID (RFC 9001 5.2). */
export function clientInitialKeys(dcid: Buffer): InitialKeys {
  const initial = createHmac('sha256', INITIAL_SALT_V1).update(dcid).digest();
  const client = expandLabel(initial, 'client in', 32);
  return {
    key: expandLabel(client, 'quic key', 16),
    iv: expandLabel(client, 'quic iv', 12),
    hp: expandLabel(client, 'quic hp', 16),
  };
}

/** The header protection mask: AES-128-ECB of the sample (RFC 9001 5.4.3). */
export function headerMask(hp: Buffer, sample: Buffer): Buffer {
  const c = createCipheriv('aes-128-ecb', hp, null);
  return c.update(sample).subarray(0, 5);
}

function readVarint(b: Buffer, o: number): [number, number] {
  if (o >= b.length) throw new RangeError('short');
  const len = 1 << (b[o]! >> 6);
  if (o + len > b.length) throw new RangeError('short');
  let v = b[o]! & 0x3f;
  for (let i = 1; i < len; i++) v = v * 256 + b[o + i]!;
  return [v, o + len];
}

function varint(v: number): Buffer {
  if (v < 64) return Buffer.from([v]);
  if (v < 16384) return Buffer.from([0x40 | (v >> 8), v & 0xff]);
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v | 0x80000000);
  return b;
}

export interface CryptoChunk {
  offset: number;
  data: Buffer;
}

export interface OpenedInitial {
  dcid: Buffer;
  packetNumber: number;
  crypto: CryptoChunk[];
}

/**
 * Opens the first packet of a UDP datagram when it is a client's QUIC v1 Initial: its CRYPTO
 * frames. Undefined for anything else, or when it does not decrypt.
 */
export function openInitial(datagram: Buffer): OpenedInitial | undefined {
  try {
    const first = datagram[0]!;
    if ((first & 0xc0) !== 0xc0 || ((first >> 4) & 0x03) !== 0) return undefined;
    if (datagram.readUInt32BE(1) !== 1) return undefined;
    let o = 5;
    const dcid = datagram.subarray(o + 1, o + 1 + datagram[o]!);
    o += 1 + dcid.length;
    o += 1 + datagram[o]!; // source connection ID
    const [tokenLength, afterToken] = readVarint(datagram, o);
    const [length, pnOffset] = readVarint(datagram, afterToken + tokenLength);
    if (pnOffset + length > datagram.length || length < 20) return undefined;
    const keys = clientInitialKeys(dcid);
    const mask = headerMask(keys.hp, datagram.subarray(pnOffset + 4, pnOffset + 20));
    const header = Buffer.from(datagram.subarray(0, pnOffset + 4));
    header[0] = first ^ (mask[0]! & 0x0f);
    const pnLength = (header[0]! & 0x03) + 1;
    let pn = 0;
    for (let i = 0; i < pnLength; i++) {
      header[pnOffset + i] = header[pnOffset + i]! ^ mask[1 + i]!;
      pn = pn * 256 + header[pnOffset + i]!;
    }
    const aad = header.subarray(0, pnOffset + pnLength);
    const body = datagram.subarray(pnOffset + pnLength, pnOffset + length);
    const nonce = Buffer.from(keys.iv);
    for (let i = 0; i < 4; i++) nonce[11 - i] = nonce[11 - i]! ^ ((pn >>> (8 * i)) & 0xff);
    const d = createDecipheriv('aes-128-gcm', keys.key, nonce);
    d.setAAD(aad);
    d.setAuthTag(body.subarray(body.length - 16));
    const plain = Buffer.concat([d.update(body.subarray(0, body.length - 16)), d.final()]);
    return { dcid: Buffer.from(dcid), packetNumber: pn, crypto: cryptoFrames(plain) };
  } catch {
    return undefined;
  }
}

/** The CRYPTO frames of an Initial's payload (PADDING, PING and ACK skipped; others end it). */
function cryptoFrames(p: Buffer): CryptoChunk[] {
  const out: CryptoChunk[] = [];
  let o = 0;
  while (o < p.length) {
    const type = p[o]!;
    if (type === 0x00 || type === 0x01) {
      o++;
    } else if (type === 0x06) {
      const [offset, a] = readVarint(p, o + 1);
      const [len, b] = readVarint(p, a);
      out.push({ offset, data: Buffer.from(p.subarray(b, b + len)) });
      o = b + len;
    } else if (type === 0x02 || type === 0x03) {
      let q = readVarint(p, o + 1)[1]; // largest acknowledged
      q = readVarint(p, q)[1]; // delay
      const [count, afterCount] = readVarint(p, q);
      q = readVarint(p, afterCount)[1]; // first range
      for (let i = 0; i < count; i++) q = readVarint(p, readVarint(p, q)[1])[1];
      if (type === 0x03) for (let i = 0; i < 3; i++) q = readVarint(p, q)[1];
      o = q;
    } else break;
  }
  return out;
}

/**
 * The ClientHello in CRYPTO data gathered from one or more Initials (in any order), once the
 * bytes from offset 0 hold the whole handshake message; undefined until then.
 */
export function helloFromCrypto(chunks: readonly CryptoChunk[]): ClientHello | undefined {
  const sorted = [...chunks].sort((a, b) => a.offset - b.offset);
  let stream = Buffer.alloc(0);
  for (const c of sorted) {
    if (c.offset > stream.length) break;
    const tail = c.data.subarray(stream.length - c.offset);
    stream = Buffer.concat([stream, tail]);
  }
  if (stream.length < 4) return undefined;
  const need = 4 + stream.readUIntBE(1, 3);
  return stream.length >= need ? parseHandshake(stream.subarray(0, need)) : undefined;
}

/**
 * A client's Initial carrying `crypto` (a ClientHello handshake message, or part of one at
 * `offset`) in one CRYPTO frame, padded to 1200 bytes as clients must (RFC 9000 14.1).
 */
export function sealInitial(
  dcid: Buffer,
  scid: Buffer,
  packetNumber: number,
  crypto: Buffer,
  offset = 0,
): Buffer {
  const frame = Buffer.concat([Buffer.from([0x06]), varint(offset), varint(crypto.length), crypto]);
  const pnLength = 4;
  const headerWithoutLength = Buffer.concat([
    Buffer.from([0xc0 | (pnLength - 1), 0, 0, 0, 1, dcid.length]),
    dcid,
    Buffer.from([scid.length]),
    scid,
    Buffer.from([0]), // no token
  ]);
  // Padding so that the datagram is 1200 bytes: header + 2-byte length + pn + payload + tag.
  const fixed = headerWithoutLength.length + 2 + pnLength + 16;
  const plain = Buffer.concat([frame, Buffer.alloc(Math.max(0, 1200 - fixed - frame.length))]);
  const length = pnLength + plain.length + 16;
  const pn = Buffer.alloc(4);
  pn.writeUInt32BE(packetNumber);
  const header = Buffer.concat([
    headerWithoutLength,
    Buffer.from([0x40 | (length >> 8), length & 0xff]),
    pn,
  ]);
  const keys = clientInitialKeys(dcid);
  const nonce = Buffer.from(keys.iv);
  for (let i = 0; i < 4; i++) nonce[11 - i] = nonce[11 - i]! ^ pn[3 - i]!;
  const c = createCipheriv('aes-128-gcm', keys.key, nonce);
  c.setAAD(header);
  const sealed = Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]);
  const packet = Buffer.concat([header, sealed]);
  const pnOffset = header.length - pnLength;
  const mask = headerMask(keys.hp, packet.subarray(pnOffset + 4, pnOffset + 20));
  packet[0] = packet[0]! ^ (mask[0]! & 0x0f);
  for (let i = 0; i < pnLength; i++) packet[pnOffset + i] = packet[pnOffset + i]! ^ mask[1 + i]!;
  return packet;
}
