// The engine's resolver's messages: what goes upstream carries nothing of the client's but its
// question (no Client Subnet, no cookie, no padding), what the client gets back is in its own
// words (its ID, its question's letter case, EDNS only if it spoke it, no ECS), and an answer
// says which addresses it gives and for how long.
import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';

import { parseQuery, type DnsQuery } from '../../platform/dns/wire.js';
import {
  answerAddresses,
  answerTtl,
  clientAnswer,
  clientAsk,
  readAnswer,
  upstreamQuery,
  type Answer,
} from './messages.js';

const CLIENT_SUBNET = 8;
const COOKIE = 10;
const PADDING = 12;
const RCODE_NXDOMAIN = 3;
const RCODE_SERVFAIL = 2;

type Option = { code: number; [k: string]: unknown };

/** An OPT record (EDNS) with `options`. */
function opt(o: { payload?: number; dnssecOk?: boolean; options?: Option[] } = {}) {
  return {
    type: 'OPT',
    name: '.',
    udpPayloadSize: o.payload ?? 4096,
    flags: o.dnssecOk ? dnsPacket.DNSSEC_OK : 0,
    options: o.options ?? [],
  } as unknown as dnsPacket.Answer;
}

const ECS: Option = { code: CLIENT_SUBNET, ip: '203.0.113.0', sourcePrefixLength: 24 };
const CLIENT_COOKIE: Option = { code: COOKIE, data: Buffer.from('0123456789abcdef', 'hex') };
const CLIENT_PADDING: Option = { code: PADDING, length: 16 };

/** A client's query as the proxy takes it off the wire. */
function query(
  o: {
    id?: number;
    name?: string;
    type?: dnsPacket.RecordType;
    flags?: number;
    edns?: dnsPacket.Answer | null;
  } = {},
): DnsQuery {
  const q = parseQuery(
    dnsPacket.encode({
      type: 'query',
      id: o.id ?? 0x4242,
      flags: o.flags ?? dnsPacket.RECURSION_DESIRED,
      questions: [{ type: o.type ?? 'A', name: o.name ?? 'WwW.Example.CN', class: 'IN' }],
      additionals: o.edns ? [o.edns] : [],
    }),
  );
  if (!q) throw new Error('not a query');
  return q;
}

const a = (name: string, data: string, ttl = 300): dnsPacket.Answer => ({
  type: 'A',
  name,
  ttl,
  class: 'IN',
  data,
});

/** An upstream's answer, as the resolver reads it. */
function upstreamAnswer(p: Partial<dnsPacket.Packet>): Answer {
  const answer = readAnswer(
    dnsPacket.encode({
      type: 'response',
      id: 0,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
      questions: [{ type: 'A', name: 'www.example.cn', class: 'IN' }],
      ...p,
    }),
  );
  if (!answer) throw new Error('not an answer');
  return answer;
}

type DecodedOpt = { type: 'OPT'; udpPayloadSize: number; flag_do: boolean; options: Option[] };
const optOf = (p: dnsPacket.DecodedPacket) =>
  (p.additionals ?? []).find((r) => r.type === 'OPT') as unknown as DecodedOpt | undefined;

describe('upstreamQuery', () => {
  it('sends none of the client’s EDNS options upstream: no Client Subnet, cookie or padding', () => {
    const ask = clientAsk(
      query({ edns: opt({ options: [ECS, CLIENT_COOKIE, CLIENT_PADDING], dnssecOk: true }) }),
    );
    const up = upstreamQuery(ask);
    const sent = dnsPacket.decode(up.raw);
    const edns = optOf(sent);
    expect(edns).toBeDefined();
    expect(edns!.options).toEqual([]);
    // Not one OPT record carrying the subnet anywhere in what is sent.
    const opts = (sent.additionals ?? []).filter(
      (r) => r.type === 'OPT',
    ) as unknown as DecodedOpt[];
    expect(opts.flatMap((o) => o.options.map((x) => x.code))).not.toContain(CLIENT_SUBNET);
    // Nor the client's bytes passed through: the subnet's octets are not in the message.
    expect(up.raw.includes(Buffer.from([203, 0, 113]))).toBe(false);
    expect(up.raw.includes(CLIENT_COOKIE.data as Buffer)).toBe(false);
  });

  it('keeps the question and the client’s DO and CD bits, and always asks for recursion', () => {
    const ask = clientAsk(
      query({
        name: 'WwW.Example.CN',
        flags: dnsPacket.CHECKING_DISABLED, // no RD from the client
        edns: opt({ dnssecOk: true, options: [ECS] }),
      }),
    );
    const sent = dnsPacket.decode(upstreamQuery(ask).raw);
    expect(sent.questions).toEqual([{ type: 'A', name: 'WwW.Example.CN', class: 'IN' }]);
    expect(sent.flag_rd).toBe(true);
    expect(sent.flag_cd).toBe(true);
    expect(sent.flag_qr).toBe(false);
    expect(optOf(sent)?.flag_do).toBe(true);
  });

  it('sets neither DO nor CD when the client did not', () => {
    const sent = dnsPacket.decode(upstreamQuery(clientAsk(query({ type: 'AAAA' }))).raw);
    expect(sent.questions?.[0]?.type).toBe('AAAA');
    expect(sent.flag_rd).toBe(true);
    expect(sent.flag_cd).toBe(false);
    expect(optOf(sent)?.flag_do ?? false).toBe(false);
    expect(optOf(sent)?.options ?? []).toEqual([]);
  });
});

describe('clientAnswer', () => {
  const answer = upstreamAnswer({
    id: 0x0bad,
    answers: [
      { type: 'CNAME', name: 'www.example.cn', ttl: 600, class: 'IN', data: 'edge.example.cn' },
      a('edge.example.cn', '192.0.2.10', 60),
    ],
    additionals: [
      opt({
        payload: 1232,
        options: [{ code: CLIENT_SUBNET, ip: '203.0.113.0', sourcePrefixLength: 24 }],
      }),
    ],
  });

  it('answers with the client’s ID and its question as it typed it', () => {
    const ask = clientAsk(query({ id: 0x4242, name: 'WwW.Example.CN', edns: opt() }));
    const sent = dnsPacket.decode(clientAnswer(answer, ask, 'udp'));
    expect(sent.id).toBe(0x4242);
    expect(sent.flag_qr).toBe(true);
    expect(sent.questions).toEqual([{ type: 'A', name: 'WwW.Example.CN', class: 'IN' }]);
    expect((sent.answers ?? []).map((r) => (r as { data?: unknown }).data)).toEqual([
      'edge.example.cn',
      '192.0.2.10',
    ]);
  });

  it('strips the Client Subnet option from the answer’s OPT for an EDNS client', () => {
    const ask = clientAsk(query({ edns: opt({ options: [ECS] }) }));
    const sent = dnsPacket.decode(clientAnswer(answer, ask, 'udp'));
    const edns = optOf(sent);
    expect(edns).toBeDefined();
    expect(edns!.options.map((o) => o.code)).not.toContain(CLIENT_SUBNET);
  });

  it('gives a client that sent no OPT an answer without one', () => {
    const ask = clientAsk(query({ edns: null }));
    const sent = dnsPacket.decode(clientAnswer(answer, ask, 'udp'));
    expect((sent.additionals ?? []).filter((r) => r.type === 'OPT')).toEqual([]);
    expect((sent.answers ?? []).length).toBe(2);
  });

  it('ages the TTLs by the time the answer was held, never below 0', () => {
    const held = upstreamAnswer({
      answers: [a('www.example.cn', '192.0.2.10', 100), a('www.example.cn', '192.0.2.11', 10)],
      authorities: [
        { type: 'NS', name: 'example.cn', ttl: 50, class: 'IN', data: 'ns.example.cn' },
      ],
    });
    const ask = clientAsk(query());
    const fresh = dnsPacket.decode(clientAnswer(held, ask, 'udp'));
    expect((fresh.answers ?? []).map((r) => (r as { ttl?: number }).ttl)).toEqual([100, 10]);
    const aged = dnsPacket.decode(clientAnswer(held, ask, 'udp', 30));
    expect((aged.answers ?? []).map((r) => (r as { ttl?: number }).ttl)).toEqual([70, 0]);
    expect((aged.authorities ?? []).map((r) => (r as { ttl?: number }).ttl)).toEqual([20]);
  });

  describe('an answer bigger than 512 bytes', () => {
    const big = upstreamAnswer({
      answers: Array.from({ length: 48 }, (_, i) => a('www.example.cn', `192.0.2.${i + 1}`)),
    });

    it('is cut to header and question with TC set for a UDP client without EDNS', () => {
      const ask = clientAsk(query({ id: 0x1111, edns: null }));
      const bytes = clientAnswer(big, ask, 'udp');
      expect(bytes.length).toBeLessThanOrEqual(512);
      const sent = dnsPacket.decode(bytes);
      expect(sent.id).toBe(0x1111);
      expect(sent.flag_tc).toBe(true);
      expect(sent.questions).toEqual([{ type: 'A', name: 'WwW.Example.CN', class: 'IN' }]);
      expect(sent.answers ?? []).toEqual([]);
      expect(sent.authorities ?? []).toEqual([]);
      expect(sent.additionals ?? []).toEqual([]);
    });

    it('comes complete, without TC, over TCP', () => {
      const ask = clientAsk(query({ edns: null }));
      const sent = dnsPacket.decode(clientAnswer(big, ask, 'tcp'));
      expect(sent.flag_tc).toBe(false);
      expect((sent.answers ?? []).length).toBe(48);
    });

    it('comes complete over UDP to a client whose EDNS payload has room for it', () => {
      const ask = clientAsk(query({ edns: opt({ payload: 4096 }) }));
      const sent = dnsPacket.decode(clientAnswer(big, ask, 'udp'));
      expect(sent.flag_tc).toBe(false);
      expect((sent.answers ?? []).length).toBe(48);
    });
  });
});

describe('what an answer says', () => {
  it('gives the addresses at the end of a CNAME chain, IPv4 only', () => {
    const answer = upstreamAnswer({
      answers: [
        { type: 'CNAME', name: 'www.example.cn', ttl: 600, class: 'IN', data: 'cdn.example.net' },
        { type: 'CNAME', name: 'cdn.example.net', ttl: 600, class: 'IN', data: 'edge.cdn.test' },
        a('edge.cdn.test', '192.0.2.10'),
        a('edge.cdn.test', '192.0.2.11'),
      ],
    });
    expect(answerAddresses(answer)).toEqual(['192.0.2.10', '192.0.2.11']);
    const six = upstreamAnswer({
      questions: [{ type: 'AAAA', name: 'www.example.cn', class: 'IN' }],
      answers: [
        { type: 'AAAA', name: 'www.example.cn', ttl: 60, class: 'IN', data: '2001:db8::1' },
      ],
    });
    expect(answerAddresses(six)).toEqual([]);
  });

  it('holds an answer as long as its records’ lowest TTL', () => {
    const answer = upstreamAnswer({
      answers: [
        { type: 'CNAME', name: 'www.example.cn', ttl: 600, class: 'IN', data: 'edge.example.cn' },
        a('edge.example.cn', '192.0.2.10', 45),
        a('edge.example.cn', '192.0.2.11', 120),
      ],
      additionals: [opt()],
    });
    expect(answerTtl(answer)).toBe(45);
  });

  it('holds a negative answer for the SOA’s negative TTL, at most five minutes', () => {
    const soa = (ttl: number, minimum: number): dnsPacket.Answer => ({
      type: 'SOA',
      name: 'example.cn',
      ttl,
      class: 'IN',
      data: {
        mname: 'ns.example.cn',
        rname: 'hostmaster.example.cn',
        serial: 1,
        refresh: 3600,
        retry: 600,
        expire: 86400,
        minimum,
      },
    });
    const nxdomain = (ttl: number, minimum: number) =>
      upstreamAnswer({ flags: RCODE_NXDOMAIN, authorities: [soa(ttl, minimum)] });
    expect(nxdomain(900, 3600).rcode).toBe('NXDOMAIN');
    expect(answerTtl(nxdomain(900, 3600))).toBe(300);
    expect(answerTtl(nxdomain(900, 30))).toBe(30);
    expect(answerTtl(nxdomain(20, 3600))).toBe(20);
    // No data for the type (NOERROR without records): the same.
    expect(answerTtl(upstreamAnswer({ authorities: [soa(3600, 86400)] }))).toBe(300);
  });

  it('does not hold a failure', () => {
    const servfail = upstreamAnswer({ flags: RCODE_SERVFAIL });
    expect(servfail.rcode).toBe('SERVFAIL');
    expect(answerTtl(servfail)).toBe(0);
    // Even one that carries records.
    expect(
      answerTtl(
        upstreamAnswer({ flags: RCODE_SERVFAIL, answers: [a('x.example.cn', '192.0.2.1')] }),
      ),
    ).toBe(0);
  });

  it('reads nothing from a message that is not DNS', () => {
    expect(readAnswer(Buffer.from('hello'))).toBeNull();
  });
});
