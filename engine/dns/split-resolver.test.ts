// The split resolver: the tunnel's resolver first; a name whose every address is at home asked
// again at home (and that answer taken only if it is at home too); a split rule's names sent the
// rule's way, their addresses in the rule's set before the answer leaves; answers cached.
import dnsPacket from 'dns-packet';
import { describe, expect, it, vi } from 'vitest';

import type { SplitRule, SplitVia } from '../../contracts/index.js';
import type { ExchangeResult } from '../../platform/dns/exchange.js';
import { parseQuery, type DnsQuery, type DnsTransport } from '../../platform/dns/wire.js';
import { AnswerCache } from './answer-cache.js';
import {
  SplitResolver,
  type ResolverRoutes,
  type RuleSets,
  type Upstreams,
} from './split-resolver.js';

/** Home addresses are 192.0.2.0/24; anything else is abroad. */
const isHome = (address: string) => address.startsWith('192.0.2.');
/** A domestic site's address as the tunnel's resolver sees it (a far edge, still at home)... */
const FAR = '192.0.2.10';
/** ...and as the home network's resolver sees it (the nearer edge). */
const NEAR = '192.0.2.20';
const ABROAD = '198.51.100.7';
const TTL = 60;
const TUNNEL_RULE: SplitRule = { domain: 'example.cn', via: 'tunnel' };
const DIRECT_RULE: SplitRule = { domain: 'example.com', via: 'direct' };

type Reply = (query: DnsQuery, transport: DnsTransport) => ExchangeResult;

/** An answer to `query` giving `addresses` (A records), with `flags` (an rcode, TC). */
function response(
  query: DnsQuery,
  addresses: readonly string[],
  o: { flags?: number; ttl?: number; extra?: dnsPacket.Answer[] } = {},
): ExchangeResult {
  const answer = dnsPacket.encode({
    type: 'response',
    id: query.id,
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (o.flags ?? 0),
    questions: [query.question],
    answers: [
      ...addresses.map((data): dnsPacket.Answer => ({
        type: 'A',
        name: query.question.name,
        ttl: o.ttl ?? TTL,
        class: 'IN',
        data,
      })),
      ...(o.extra ?? []),
    ],
  });
  const rcode = dnsPacket.decode(answer) as { rcode?: string };
  return { kind: 'answer', answer, rcode: rcode.rcode ?? 'NOERROR' };
}

const giving =
  (...addresses: string[]): Reply =>
  (query) =>
    response(query, addresses);
const FAILING: Reply = () => ({ kind: 'failed' });

/** Resolvers that note every question they are asked (into the shared log too). */
class FakeUpstreams implements Upstreams {
  readonly asked: { name: string; type: string; transport: DnsTransport; raw: Buffer }[] = [];

  constructor(
    private readonly label: string,
    private readonly log: string[],
    public reply: Reply,
  ) {}

  async ask(query: DnsQuery, transport: DnsTransport): Promise<ExchangeResult> {
    const { name, type } = query.question;
    this.asked.push({ name, type, transport, raw: query.raw });
    this.log.push(`${this.label} ${transport}`);
    return this.reply(query, transport);
  }
}

class FakeRuleSets implements RuleSets {
  readonly added: { via: SplitVia; addresses: string[]; ttlS: number }[] = [];
  /** What an add does: resolves at once unless a test says otherwise. */
  outcome: () => Promise<void> = () => Promise.resolve();

  constructor(private readonly log: string[]) {}

  add(via: SplitVia, addresses: readonly string[], ttlS: number): Promise<void> {
    this.added.push({ via, addresses: [...addresses], ttlS });
    this.log.push(`add ${via}`);
    return this.outcome();
  }
}

function clientQuery(
  name: string,
  type: dnsPacket.RecordType = 'A',
  additionals: dnsPacket.Answer[] = [],
): DnsQuery {
  const q = parseQuery(
    dnsPacket.encode({
      type: 'query',
      id: 0x2a2a,
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ type, name, class: 'IN' }],
      additionals,
    }),
  );
  if (!q) throw new Error('not a query');
  return q;
}

function setup(
  o: {
    tunnel?: Reply;
    home?: Reply | null;
    isHome?: ((address: string) => boolean) | null;
    rules?: SplitRule[];
  } = {},
) {
  const log: string[] = [];
  const tunnel = new FakeUpstreams('tunnel', log, o.tunnel ?? giving(FAR));
  const home = o.home === null ? null : new FakeUpstreams('home', log, o.home ?? giving(NEAR));
  const ruleSets = new FakeRuleSets(log);
  const clock = { ms: 5_000_000 };
  const routes: ResolverRoutes = {
    tunnel,
    home,
    isHome: o.isHome === undefined ? isHome : o.isHome,
  };
  const resolver = new SplitResolver(routes, ruleSets, new AnswerCache(() => clock.ms));
  if (o.rules) resolver.setRules(o.rules);
  const ask = (name: string, type: dnsPacket.RecordType = 'A', transport: DnsTransport = 'udp') =>
    resolver.answer(clientQuery(name, type), transport, new AbortController().signal);
  return { log, tunnel, home: home!, ruleSets, resolver, clock, ask };
}

const decoded = (bytes: Buffer | null) => {
  expect(bytes).not.toBeNull();
  return dnsPacket.decode(bytes!);
};
const addressesIn = (bytes: Buffer | null) =>
  (decoded(bytes).answers ?? [])
    .filter((r): r is dnsPacket.StringAnswer => r.type === 'A')
    .map((r) => r.data);

describe('SplitResolver: the split by country', () => {
  it('asks a domestic name again at home, after the tunnel’s, and gives the home answer', async () => {
    const t = setup();
    const bytes = await t.ask('WwW.Example.CN');
    expect(addressesIn(bytes)).toEqual([NEAR]);
    expect(t.log).toEqual(['tunnel udp', 'home udp']);
    expect(t.home.asked.map((q) => [q.name, q.type])).toEqual([['WwW.Example.CN', 'A']]);
    // In the client's words: its ID, its question.
    const sent = decoded(bytes);
    expect(sent.id).toBe(0x2a2a);
    expect(sent.questions?.[0]?.name).toBe('WwW.Example.CN');
  });

  it('never asks a foreign name at home: one address abroad is enough', async () => {
    const t = setup({ tunnel: giving(FAR, ABROAD) });
    expect(addressesIn(await t.ask('www.example.com'))).toEqual([FAR, ABROAD]);
    expect(t.home.asked).toEqual([]);
    const abroad = setup({ tunnel: giving(ABROAD) });
    expect(addressesIn(await abroad.ask('www.example.com'))).toEqual([ABROAD]);
    expect(abroad.home.asked).toEqual([]);
  });

  it('does not take a home answer that points abroad (forged): the tunnel’s stands', async () => {
    const t = setup({ home: giving(ABROAD) });
    expect(addressesIn(await t.ask('bank.example.cn'))).toEqual([FAR]);
    expect(t.home.asked).toHaveLength(1);
    const mixed = setup({ home: giving(NEAR, ABROAD) });
    expect(addressesIn(await mixed.ask('bank.example.cn'))).toEqual([FAR]);
    // A home resolver that says the name does not exist is not believed either.
    const denied = setup({ home: (q) => response(q, [], { flags: 3 }) });
    const bytes = await denied.ask('bank.example.cn');
    expect((decoded(bytes) as { rcode?: string }).rcode).toBe('NOERROR');
    expect(addressesIn(bytes)).toEqual([FAR]);
  });

  it('gives the tunnel’s answer when the home resolver fails', async () => {
    const t = setup({ home: FAILING });
    expect(addressesIn(await t.ask('www.example.cn'))).toEqual([FAR]);
    expect(t.log).toEqual(['tunnel udp', 'home udp']);
  });

  it('never asks an AAAA question at home, even with a home IPv4 address in the answer', async () => {
    const aaaa: dnsPacket.Answer = {
      type: 'AAAA',
      name: 'www.example.cn',
      ttl: TTL,
      class: 'IN',
      data: '2001:db8::10',
    };
    const t = setup({ tunnel: (q) => response(q, [FAR], { extra: [aaaa] }) });
    const bytes = await t.ask('www.example.cn', 'AAAA');
    expect(decoded(bytes).answers?.some((r) => r.type === 'AAAA')).toBe(true);
    expect(t.home.asked).toEqual([]);
    expect(t.tunnel.asked.map((q) => q.type)).toEqual(['AAAA']);
  });

  it('asks nothing at home with the split by country off, or no home resolver known', async () => {
    const off = setup({ isHome: null });
    expect(addressesIn(await off.ask('www.example.cn'))).toEqual([FAR]);
    expect(off.home.asked).toEqual([]);
    const noHome = setup({ home: null });
    expect(addressesIn(await noHome.ask('www.example.cn'))).toEqual([FAR]);
    expect(noHome.log).toEqual(['tunnel udp']);
  });

  it('passes the tunnel’s SERVFAIL on, without asking at home or holding it', async () => {
    const t = setup({ tunnel: (q) => response(q, [], { flags: 2 }) });
    const sent = decoded(await t.ask('www.example.cn'));
    expect((sent as { rcode?: string }).rcode).toBe('SERVFAIL');
    expect(t.home.asked).toEqual([]);
    expect(t.resolver.cached).toBe(0);
  });

  it('sends neither the client’s Client Subnet nor any other option upstream', async () => {
    const t = setup();
    const edns = {
      type: 'OPT',
      name: '.',
      udpPayloadSize: 4096,
      flags: 0,
      options: [{ code: 8, ip: '203.0.113.0', sourcePrefixLength: 24 }],
    } as unknown as dnsPacket.Answer;
    await t.resolver.answer(
      clientQuery('www.example.cn', 'A', [edns]),
      'udp',
      new AbortController().signal,
    );
    expect(t.log).toEqual(['tunnel udp', 'home udp']);
    for (const q of [...t.tunnel.asked, ...t.home.asked]) {
      const opts = (dnsPacket.decode(q.raw).additionals ?? []).filter((r) => r.type === 'OPT');
      for (const o of opts) expect((o as { options: unknown[] }).options).toEqual([]);
    }
  });
});

describe('SplitResolver: split rules', () => {
  it('asks a `direct` program’s names at home only, a `tunnel` program’s through the tunnel only', async () => {
    const t = setup();
    const ask = (name: string, program: 'direct' | 'tunnel') =>
      t.resolver.answer(clientQuery(name), 'udp', new AbortController().signal, program);
    expect(addressesIn(await ask('shop.example.de', 'direct'))).toEqual([NEAR]);
    expect(t.log).toEqual(['home udp']);
    t.log.length = 0;
    // Domestic as the answer is, a tunnel program's name is never asked at home.
    expect(addressesIn(await ask('shop.example.de', 'tunnel'))).toEqual([FAR]);
    expect(t.log).toEqual(['tunnel udp']);
    t.log.length = 0;
    // Each way has its own answers cached; any other program's question is asked as usual.
    expect(addressesIn(await t.ask('shop.example.de'))).toEqual([NEAR]);
    expect(t.log).toEqual(['tunnel udp', 'home udp']);
    // No home resolver known: a direct program's names through the tunnel's (still direct).
    const noHome = setup({ home: null });
    expect(
      addressesIn(
        await noHome.resolver.answer(
          clientQuery('shop.example.de'),
          'udp',
          new AbortController().signal,
          'direct',
        ),
      ),
    ).toEqual([FAR]);
  });

  it('never asks a `tunnel` rule’s name or its subdomains at home, domestic as they are', async () => {
    const t = setup({ rules: [TUNNEL_RULE] });
    expect(addressesIn(await t.ask('example.cn'))).toEqual([FAR]);
    expect(addressesIn(await t.ask('Video.Example.CN.'))).toEqual([FAR]);
    expect(t.home.asked).toEqual([]);
    expect(t.ruleSets.added).toEqual([
      { via: 'tunnel', addresses: [FAR], ttlS: TTL },
      { via: 'tunnel', addresses: [FAR], ttlS: TTL },
    ]);
  });

  it('puts a rule’s addresses in its set before the answer is given', async () => {
    const t = setup({ rules: [TUNNEL_RULE] });
    let release!: () => void;
    t.ruleSets.outcome = () => new Promise<void>((resolve) => (release = resolve));
    let given = false;
    const answer = t.ask('www.example.cn').then((bytes) => {
      given = true;
      return bytes;
    });
    await vi.waitFor(() => expect(t.ruleSets.added).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(given).toBe(false);
    release();
    expect(addressesIn(await answer)).toEqual([FAR]);
    expect(t.ruleSets.added).toEqual([{ via: 'tunnel', addresses: [FAR], ttlS: TTL }]);
  });

  it('asks a `direct` rule’s name at home first, the tunnel not at all', async () => {
    const t = setup({ rules: [DIRECT_RULE], home: giving(ABROAD) });
    expect(addressesIn(await t.ask('www.example.com'))).toEqual([ABROAD]);
    expect(t.log).toEqual(['home udp', 'add direct']);
    expect(t.ruleSets.added).toEqual([{ via: 'direct', addresses: [ABROAD], ttlS: TTL }]);
  });

  it('asks a `direct` rule’s name of the tunnel only when home fails, addresses still direct', async () => {
    const t = setup({ rules: [DIRECT_RULE], home: FAILING, tunnel: giving(ABROAD) });
    expect(addressesIn(await t.ask('example.com'))).toEqual([ABROAD]);
    expect(t.log).toEqual(['home udp', 'tunnel udp', 'add direct']);
    expect(t.ruleSets.added).toEqual([{ via: 'direct', addresses: [ABROAD], ttlS: TTL }]);
    // No home resolver at all: the tunnel's, and still direct.
    const noHome = setup({ rules: [DIRECT_RULE], home: null, tunnel: giving(ABROAD) });
    expect(addressesIn(await noHome.ask('example.com'))).toEqual([ABROAD]);
    expect(noHome.ruleSets.added).toEqual([{ via: 'direct', addresses: [ABROAD], ttlS: TTL }]);
  });

  it('asks a `direct` rule’s name of the tunnel when home refuses or fails with SERVFAIL', async () => {
    for (const rcode of [2, 5]) {
      const t = setup({
        rules: [DIRECT_RULE],
        home: (query) => response(query, [], { flags: rcode }),
        tunnel: giving(ABROAD),
      });
      expect(addressesIn(await t.ask('example.com'))).toEqual([ABROAD]);
      expect(t.log).toEqual(['home udp', 'tunnel udp', 'add direct']);
    }
  });

  it('takes the nearest rule: a `direct` subdomain of a `tunnel` domain', async () => {
    const t = setup({
      rules: [TUNNEL_RULE, { domain: 'pay.example.cn', via: 'direct' }],
      home: giving(NEAR),
    });
    expect(addressesIn(await t.ask('api.pay.example.cn'))).toEqual([NEAR]);
    expect(t.log).toEqual(['home udp', 'add direct']);
  });

  it('answers nothing as if the rule held when the set refuses the addresses', async () => {
    const t = setup({ rules: [TUNNEL_RULE] });
    t.ruleSets.outcome = () => Promise.reject(new Error('no table'));
    await expect(t.ask('www.example.cn')).rejects.toThrow('no table');
    // Nothing kept that a next question would be answered from without the set.
    expect(t.resolver.cached).toBe(0);
    t.ruleSets.outcome = () => Promise.resolve();
    expect(addressesIn(await t.ask('www.example.cn'))).toEqual([FAR]);
    expect(t.tunnel.asked).toHaveLength(2);
  });
});

describe('SplitResolver: the cache', () => {
  it('answers the same question again without asking upstream, TTLs aged', async () => {
    const t = setup({ home: null });
    await t.ask('www.example.net');
    t.clock.ms += 20_000;
    const again = decoded(await t.ask('WWW.Example.NET'));
    expect(t.tunnel.asked).toHaveLength(1);
    expect(again.questions?.[0]?.name).toBe('WWW.Example.NET');
    expect((again.answers ?? []).map((r) => (r as { ttl?: number }).ttl)).toEqual([TTL - 20]);
    // Once the TTL is up it is asked again.
    t.clock.ms += TTL * 1000;
    await t.ask('www.example.net');
    expect(t.tunnel.asked).toHaveLength(2);
  });

  it('puts a rule’s cached answer in its set again (the set may be new), for what is left', async () => {
    const t = setup({ rules: [TUNNEL_RULE] });
    await t.ask('www.example.cn');
    t.clock.ms += 15_000;
    expect(addressesIn(await t.ask('www.example.cn'))).toEqual([FAR]);
    expect(t.tunnel.asked).toHaveLength(1);
    expect(t.ruleSets.added).toEqual([
      { via: 'tunnel', addresses: [FAR], ttlS: TTL },
      { via: 'tunnel', addresses: [FAR], ttlS: TTL - 15 },
    ]);
  });

  it('forgets what it held when the rules change', async () => {
    const t = setup();
    await t.ask('www.example.cn');
    expect(t.resolver.cached).toBe(1);
    t.resolver.setRules([TUNNEL_RULE]);
    expect(t.resolver.cached).toBe(0);
    // Now the rule's way: the tunnel's answer, the home resolver not asked again.
    expect(addressesIn(await t.ask('www.example.cn'))).toEqual([FAR]);
    expect(t.tunnel.asked).toHaveLength(2);
    expect(t.home.asked).toHaveLength(1);
  });

  it('forgets what it held when the routes change', async () => {
    const t = setup();
    await t.ask('www.example.cn');
    expect(t.resolver.cached).toBe(1);
    const log: string[] = [];
    const tunnel = new FakeUpstreams('new tunnel', log, giving(ABROAD));
    t.resolver.setRoutes({ tunnel, home: null, isHome });
    expect(t.resolver.cached).toBe(0);
    expect(addressesIn(await t.ask('www.example.cn'))).toEqual([ABROAD]);
    expect(log).toEqual(['new tunnel udp']);
  });
});

describe('SplitResolver: failures and truncation', () => {
  it('answers null (SERVFAIL) when the tunnel’s resolver fails', async () => {
    const t = setup({ tunnel: FAILING });
    expect(await t.ask('www.example.cn')).toBeNull();
    expect(t.home.asked).toEqual([]);
    expect(t.resolver.cached).toBe(0);
    // A `direct` rule's name when both fail: null, and no address put anywhere.
    const both = setup({ tunnel: FAILING, home: FAILING, rules: [DIRECT_RULE] });
    expect(await both.ask('example.com')).toBeNull();
    expect(both.ruleSets.added).toEqual([]);
  });

  it('asks again over TCP when the UDP answer came truncated', async () => {
    const many = Array.from({ length: 5 }, (_, i) => `198.51.100.${i + 1}`);
    const t = setup({
      tunnel: (q, transport) =>
        transport === 'udp'
          ? response(q, [], { flags: dnsPacket.TRUNCATED_RESPONSE })
          : response(q, many),
    });
    const bytes = await t.ask('www.example.com');
    expect(t.tunnel.asked.map((q) => q.transport)).toEqual(['udp', 'tcp']);
    expect(addressesIn(bytes)).toEqual(many);
    expect(decoded(bytes).flag_tc).toBe(false);
  });
});
