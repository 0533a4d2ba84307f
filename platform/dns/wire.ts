// DNS messages on the wire: telling a query from anything else, matching an upstream's answer to
// the query it answers, our own SERVFAIL, and the length-prefixed framing of DNS over TCP.
import dnsPacket from 'dns-packet';

export type DnsTransport = 'udp' | 'tcp';

export interface DnsQuery {
  /** The client's bytes: forwarded as they are, so nothing dns-packet does not model is lost. */
  raw: Buffer;
  id: number;
  flags: number;
  question: dnsPacket.Question;
}

/** RFC 1035 4.1.1; dns-packet names rcodes when decoding but takes them as flag bits. */
const RCODE_SERVFAIL = 2;
/** A TCP message's length prefix (RFC 1035 4.2.2). */
const LENGTH_PREFIX = 2;

/** What the decoder returns beyond its published types. */
type Decoded = dnsPacket.DecodedPacket & { opcode?: string; rcode?: string };

function decode(message: Buffer): Decoded | undefined {
  try {
    return dnsPacket.decode(message) as Decoded;
  } catch {
    return undefined;
  }
}

/** A well-formed query (QR=0, opcode QUERY, exactly one question), or undefined. */
export function parseQuery(message: Buffer): DnsQuery | undefined {
  const p = decode(message);
  if (!p || p.flag_qr || p.opcode !== 'QUERY' || p.questions?.length !== 1) return undefined;
  return { raw: message, id: p.id ?? 0, flags: p.flags ?? 0, question: p.questions[0]! };
}

function sameQuestion(a: dnsPacket.Question, b: dnsPacket.Question): boolean {
  // Resolvers may echo the name in another letter case (0x20 randomisation): names are ASCII
  // case-insensitive.
  return a.name.toLowerCase() === b.name.toLowerCase() && a.type === b.type && a.class === b.class;
}

/**
 * The rcode of an upstream's answer to our query `id`, or undefined when the message is not
 * that answer (spoofed, stale or garbled): the ID and the question must both match. An error
 * answer may come without the question (e.g. FORMERR to an EDNS query, RFC 6891 7).
 */
export function answerRcode(
  message: Buffer,
  id: number,
  question: dnsPacket.Question,
): string | undefined {
  const p = decode(message);
  if (!p || !p.flag_qr || p.id !== id) return undefined;
  const rcode = p.rcode ?? 'NOERROR';
  const questions = p.questions ?? [];
  if (questions.length === 0)
    return rcode === 'NOERROR' || rcode === 'NXDOMAIN' ? undefined : rcode;
  return questions.length === 1 && sameQuestion(questions[0]!, question) ? rcode : undefined;
}

/** The message with another ID; the rest stays byte for byte what the sender wrote. */
export function withId(message: Buffer, id: number): Buffer {
  const copy = Buffer.from(message);
  copy.writeUInt16BE(id, 0);
  return copy;
}

/** Our own answer when no upstream gave one: the client's ID, question and RD/CD bits. */
export function servfail(q: DnsQuery): Buffer {
  return dnsPacket.encode({
    type: 'response',
    id: q.id,
    flags:
      (q.flags & (dnsPacket.RECURSION_DESIRED | dnsPacket.CHECKING_DISABLED)) |
      dnsPacket.RECURSION_AVAILABLE |
      RCODE_SERVFAIL,
    questions: [q.question],
  });
}

/** The message with its TCP length prefix. */
export function frame(message: Buffer): Buffer {
  const prefix = Buffer.alloc(LENGTH_PREFIX);
  prefix.writeUInt16BE(message.length);
  return Buffer.concat([prefix, message]);
}

/** Splits up to `max` complete length-prefixed messages off the front of `buffer`; returns the rest. */
export function takeMessages(buffer: Buffer, max: number): { messages: Buffer[]; rest: Buffer } {
  const messages: Buffer[] = [];
  let offset = 0;
  while (messages.length < max && buffer.length - offset >= LENGTH_PREFIX) {
    const length = buffer.readUInt16BE(offset);
    if (buffer.length - offset - LENGTH_PREFIX < length) break;
    messages.push(buffer.subarray(offset + LENGTH_PREFIX, offset + LENGTH_PREFIX + length));
    offset += LENGTH_PREFIX + length;
  }
  return { messages, rest: buffer.subarray(offset) };
}
