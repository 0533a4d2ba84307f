// The engine's resolver's messages: the question it asks upstream in its own words (no EDNS
// Client Subnet, ever), the answer it gives back in the client's (its ID and question, EDNS only
// if the client spoke it, no ECS), and what an answer says (its addresses, how long it holds).
import dnsPacket from 'dns-packet';

import { canonicalName } from '../../contracts/index.js';
import type { DnsQuery } from '../../platform/dns/wire.js';

/** What the resolver advertises upstream and what a client without EDNS can take (RFC 1035 4.2.1). */
const UPSTREAM_PAYLOAD = 1232;
const PLAIN_PAYLOAD = 512;
/** RFC 7871: the option a resolver may use to tell an authority who asks (a subnet of the user's). */
const CLIENT_SUBNET = 8;
/** An answer is held at most a day, a name that does not exist at most five minutes (RFC 2308). */
const MAX_TTL_S = 86_400;
const MAX_NEGATIVE_TTL_S = 300;
/** A negative answer without an SOA to say how long: a minute. */
const DEFAULT_NEGATIVE_TTL_S = 60;

type Decoded = dnsPacket.DecodedPacket & { rcode?: string };
type Opt = Extract<dnsPacket.Answer, { type: 'OPT' }>;

const isOpt = (a: dnsPacket.Answer): a is Opt => a.type === 'OPT';

/** What the client's query asked beside the question: its EDNS, if any. */
export interface ClientAsk {
  query: DnsQuery;
  /** The client's EDNS payload size, null when it sent no OPT record. */
  ednsPayload: number | null;
  /** DNSSEC OK: the client wants signatures. */
  dnssecOk: boolean;
}

/** The client's query as the resolver reads it (its EDNS: none when it cannot be decoded). */
export function clientAsk(query: DnsQuery): ClientAsk {
  let opt: Opt | undefined;
  try {
    opt = (dnsPacket.decode(query.raw).additionals ?? []).find(isOpt);
  } catch {
    opt = undefined;
  }
  return {
    query,
    ednsPayload: opt ? Math.max(PLAIN_PAYLOAD, opt.udpPayloadSize) : null,
    dnssecOk: opt?.flag_do ?? false,
  };
}

/**
 * The query the resolver sends upstream for a client's question: the question alone with
 * recursion desired (and checking disabled if the client asked so), EDNS with our own payload
 * size and the client's DO bit, and no option at all: whatever the client put in (a subnet, a
 * cookie, padding) stays with us.
 */
export function upstreamQuery(ask: ClientAsk): DnsQuery {
  const flags = dnsPacket.RECURSION_DESIRED | (ask.query.flags & dnsPacket.CHECKING_DISABLED);
  const question = { name: ask.query.question.name, type: ask.query.question.type, class: 'IN' };
  const raw = dnsPacket.encode({
    type: 'query',
    id: 0,
    flags,
    questions: [question as dnsPacket.Question],
    additionals: [
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: UPSTREAM_PAYLOAD,
        flags: ask.dnssecOk ? dnsPacket.DNSSEC_OK : 0,
        options: [],
      } as unknown as dnsPacket.Answer,
    ],
  });
  return { raw, id: 0, flags, question: ask.query.question };
}

/**
 * Names under this zone are the engine's resolver's own: it answers them itself, with its own
 * address (so that `netcli diagnose` can tell, through the system resolver as programs ask,
 * whether the system resolver is the engine's). `.internal` is for private use (ICANN, 2024).
 */
export const SELF_CHECK_ZONE = 'ferry-resolver.internal';

/** Whether a name is one of the self-check zone's. */
export function isSelfCheck(name: string): boolean {
  const n = canonicalName(name);
  return n === SELF_CHECK_ZONE || n.endsWith(`.${SELF_CHECK_ZONE}`);
}

/** The resolver's own answer to a self-check question: `address` for A, nothing else. */
export function selfAnswer(ask: ClientAsk, address: string): Buffer {
  const { question } = ask.query;
  return dnsPacket.encode({
    type: 'response',
    id: ask.query.id,
    flags:
      dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | dnsPacket.AUTHORITATIVE_ANSWER,
    questions: [question],
    answers:
      question.type === 'A' ? [{ type: 'A', name: question.name, ttl: 0, data: address }] : [],
  });
}

/** An upstream's answer, decoded once: what the resolver keeps and gives out again. */
export interface Answer {
  packet: Decoded;
  rcode: string;
}

/** The answer in a message, or null when it cannot be decoded. */
export function readAnswer(message: Buffer): Answer | null {
  try {
    const packet = dnsPacket.decode(message) as Decoded;
    return { packet, rcode: packet.rcode ?? 'NOERROR' };
  } catch {
    return null;
  }
}

/** The IPv4 addresses an answer gives (those of the whole CNAME chain's end). */
export function answerAddresses(answer: Answer): string[] {
  return (answer.packet.answers ?? [])
    .filter((a): a is dnsPacket.StringAnswer => a.type === 'A')
    .map((a) => a.data);
}

/**
 * How long an answer may be held, in seconds: its records' lowest TTL; for an answer without
 * records, the SOA's negative TTL (RFC 2308 5), bounded. 0: do not hold (a failure).
 */
export function answerTtl(answer: Answer): number {
  if (answer.rcode !== 'NOERROR' && answer.rcode !== 'NXDOMAIN') return 0;
  const records = (answer.packet.answers ?? []).filter((a) => !isOpt(a));
  if (records.length > 0)
    return Math.min(MAX_TTL_S, ...records.map((r) => (r as { ttl?: number }).ttl ?? 0));
  const soa = (answer.packet.authorities ?? []).find(
    (a): a is dnsPacket.SoaAnswer => a.type === 'SOA',
  );
  if (!soa) return DEFAULT_NEGATIVE_TTL_S;
  return Math.min(MAX_NEGATIVE_TTL_S, soa.ttl ?? 0, soa.data.minimum ?? 0);
}

const withoutSubnet = (a: dnsPacket.Answer): dnsPacket.Answer =>
  isOpt(a) ? ({ ...a, options: a.options.filter((o) => o.code !== CLIENT_SUBNET) } as Opt) : a;

/** Every record's TTL less `elapsedS` (what a cached answer has left), never below 0. */
function aged(records: dnsPacket.Answer[] | undefined, elapsedS: number): dnsPacket.Answer[] {
  return (records ?? []).map((r) => {
    if (isOpt(r) || elapsedS === 0) return r;
    const ttl = (r as { ttl?: number }).ttl ?? 0;
    return { ...r, ttl: Math.max(0, ttl - elapsedS) } as dnsPacket.Answer;
  });
}

/**
 * The answer as the client gets it: its own ID and question (letter case included), EDNS only
 * if it sent EDNS, no Client Subnet option, the TTLs less what the answer spent in the cache. An
 * answer too large for a client over UDP is cut to its header and question with TC set, so that
 * the client asks again over TCP (RFC 1035 4.2.1, RFC 6891 7).
 */
export function clientAnswer(
  answer: Answer,
  ask: ClientAsk,
  transport: 'udp' | 'tcp',
  elapsedS = 0,
): Buffer {
  const p = answer.packet;
  const additionals = (p.additionals ?? [])
    .filter((a) => ask.ednsPayload !== null || !isOpt(a))
    .map(withoutSubnet);
  const packet: dnsPacket.Packet = {
    type: 'response',
    id: ask.query.id,
    flags: (p.flags ?? 0) & ~dnsPacket.TRUNCATED_RESPONSE,
    questions: [ask.query.question],
    answers: aged(p.answers, elapsedS),
    authorities: aged(p.authorities, elapsedS),
    additionals: aged(additionals, elapsedS),
  };
  const full = dnsPacket.encode(packet);
  const room = ask.ednsPayload ?? PLAIN_PAYLOAD;
  if (transport === 'tcp' || full.length <= room) return full;
  return dnsPacket.encode({
    type: 'response',
    id: ask.query.id,
    flags: (packet.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE,
    questions: [ask.query.question],
  });
}
