// The engine's resolver's part of the split benchmark: what it adds to a name's answer (median and
// p99) for a cached name, an uncached foreign one (the tunnel's resolver alone), an uncached
// domestic one (the tunnel's resolver, then the home network's), and the first answer for a
// domain rule's name (its address put in the rule's nftables set before the answer leaves).
// The real DnsProxy with its real RuleAddresses and NftFirewall (nft in the benchmark's
// namespace); two loopback authorities stand in for the tunnel's and the home network's
// resolvers, and the same questions asked of the tunnel's directly are the baseline.
import dgram from 'node:dgram';
import { performance } from 'node:perf_hooks';
import dnsPacket from 'dns-packet';

import { runCommand } from '../../platform/os/command.js';
import { NftFirewall } from '../../platform/os/nftables.js';
import { DnsProxy } from '../../engine/dns/dns-proxy.js';
import { RuleAddresses } from '../../engine/dns/rule-addresses.js';
import { PROTECTION_TABLE, protectionTable } from '../../engine/protection/firewall-policy.js';
import { median, progress } from './bench-kit.js';

/** Questions per measured kind (sequential: a latency, not a throughput). */
const QUESTIONS = 400;
/** First answers of a rule's names: each an nft transaction in the namespace. */
const RULE_QUESTIONS = 40;
/** Loopback addresses of the stand-in resolvers and of the engine's resolver (port 53 each). */
const TUNNEL_RESOLVER = '127.77.0.1';
const HOME_RESOLVER = '127.77.0.2';
const PROXY = '127.77.0.53';
/** What the stand-ins answer: `home-*` names at home (TEST-NET-1), the rest abroad (TEST-NET-2). */
const HOME_NET = '192.0.2.';
const ABROAD_NET = '198.51.100.';

export interface LatencyRow {
  what: string;
  questions: number;
  median: number;
  p99: number;
  /** The same kind of question asked of the tunnel's resolver directly. */
  baseline: { median: number; p99: number } | null;
}

/** The value below which 99 % of the measurements fall (nearest rank). */
export function p99(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)]!;
}

interface StandIn {
  socket: dgram.Socket;
  /** The names it was asked, in order. */
  asked: string[];
}

/** A resolver that answers every A question at once, with an address from the name (TTL 300). */
function standIn(address: string): Promise<StandIn> {
  const socket = dgram.createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (m, from) => {
    const q = dnsPacket.decode(m);
    const question = q.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    asked.push(name);
    const n = Number(/(\d+)/.exec(name)?.[1] ?? 1) % 250;
    // A rule's names: an address of their own each (a CDN's), so that every first answer adds one.
    const rule = /^r(\d+)\./.exec(name);
    const data = rule
      ? `203.0.${Math.floor(Number(rule[1]) / 250)}.${(Number(rule[1]) % 250) + 1}`
      : `${name.startsWith('home-') ? HOME_NET : ABROAD_NET}${n + 1}`;
    socket.send(
      dnsPacket.encode({
        type: 'response',
        id: q.id,
        flags: dnsPacket.RECURSION_AVAILABLE | dnsPacket.RECURSION_DESIRED,
        questions: [question],
        answers: question.type === 'A' ? [{ type: 'A', name: question.name, ttl: 300, data }] : [],
      }),
      from.port,
      from.address,
    );
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(53, address, () => resolve({ socket, asked }));
  });
}

/** One client socket asking one question at a time; each answer's time in ms. */
class Asker {
  readonly #socket = dgram.createSocket('udp4');
  #waiting: ((m: Buffer) => void) | null = null;

  constructor() {
    this.#socket.on('message', (m) => this.#waiting?.(m));
  }

  async ask(server: string, name: string): Promise<number> {
    const id = Math.floor(Math.random() * 65_536);
    const query = dnsPacket.encode({
      type: 'query',
      id,
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ type: 'A', name, class: 'IN' }],
    });
    const t = performance.now();
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer for ${name} from ${server}`)),
        5_000,
      );
      this.#waiting = (m) => {
        if (m.readUInt16BE(0) !== id) return;
        clearTimeout(timer);
        resolve(m);
      };
      this.#socket.send(query, 53, server);
    });
    const ms = performance.now() - t;
    if ((dnsPacket.decode(answer).answers ?? []).length === 0)
      throw new Error(`${server} gave no address for ${name}`);
    return ms;
  }

  close(): void {
    this.#socket.close();
  }
}

async function series(n: number, f: (i: number) => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await f(i));
  return out;
}

/**
 * The resolver's rows. `namespace`: where nft holds the engine's table (the rules' sets); the
 * resolver itself runs in this process, on loopback.
 */
export async function resolverRows(namespace: string): Promise<LatencyRow[]> {
  progress('the engine\u2019s resolver');
  const firewall = new NftFirewall((tool, args) =>
    runCommand('ip', ['netns', 'exec', namespace, tool, ...args]),
  );
  await firewall.apply(
    PROTECTION_TABLE,
    protectionTable({
      block: false,
      blockIpv6: true,
      nodes: [],
      probes: [],
      controlPlane: [],
      lan: null,
      dns: [],
      split: null,
      rules: 0,
    }),
  );
  const rules = new RuleAddresses(firewall);
  const proxy = new DnsProxy(rules, { address: PROXY, programs: null });
  const servers = await Promise.all([standIn(TUNNEL_RESOLVER), standIn(HOME_RESOLVER)]);
  const asker = new Asker();
  try {
    await proxy.use({
      tunnel: [TUNNEL_RESOLVER],
      home: [HOME_RESOLVER],
      isHome: (address) => address.startsWith(HOME_NET),
    });
    proxy.setRules([{ domain: 'rule.bench', via: 'direct' }]);
    // Warm both paths (the first socket, JIT) before anything is timed.
    await series(20, (i) => asker.ask(PROXY, `warm${i}.bench`));
    await series(20, (i) => asker.ask(TUNNEL_RESOLVER, `warm${i}.bench`));

    const direct = await series(QUESTIONS, (i) => asker.ask(TUNNEL_RESOLVER, `d${i}.bench`));
    const baseline = { median: median(direct), p99: p99(direct) };
    const foreign = await series(QUESTIONS, (i) => asker.ask(PROXY, `f${i}.bench`));
    const domestic = await series(QUESTIONS, (i) => asker.ask(PROXY, `home-${i}.bench`));
    const cached = await series(QUESTIONS, () => asker.ask(PROXY, 'f1.bench'));
    const ruleFirst = await series(RULE_QUESTIONS, (i) => asker.ask(PROXY, `r${i}.rule.bench`));
    // The paths measured are the ones meant: every domestic name was asked at home too, no
    // foreign one was, and the cached name went upstream once.
    const [tunnelAsked, homeAsked] = servers.map((s) => s.asked);
    const homeNames = homeAsked!.filter((n) => n.startsWith('home-')).length;
    if (homeNames !== QUESTIONS || homeAsked!.some((n) => /^f\d+\./.test(n)))
      throw new Error(`the home resolver was asked ${homeNames} domestic names, not ${QUESTIONS}`);
    if (tunnelAsked!.filter((n) => n === 'f1.bench').length !== 1)
      throw new Error('the cached name was asked upstream more than once');
    const held = await firewall.inspect(PROTECTION_TABLE);
    const direct4 = held?.sets.find((s) => s.name === 'rules_direct4')?.elements ?? 0;
    if (direct4 < RULE_QUESTIONS)
      throw new Error(`the rule's set holds ${direct4} addresses, not ${RULE_QUESTIONS}`);
    const row = (what: string, xs: number[], base: LatencyRow['baseline']): LatencyRow => ({
      what,
      questions: xs.length,
      median: median(xs),
      p99: p99(xs),
      baseline: base,
    });
    return [
      row('tunnel resolver asked directly (the baseline)', direct, null),
      row('cached name', cached, baseline),
      row('uncached foreign name (tunnel resolver)', foreign, baseline),
      row('uncached domestic name (tunnel, then home resolver)', domestic, baseline),
      row('first answer of a domain rule’s name (nft set + answer)', ruleFirst, baseline),
    ];
  } finally {
    asker.close();
    await proxy.stop();
    for (const s of servers) s.socket.close();
    await firewall.remove(PROTECTION_TABLE).catch(() => undefined);
  }
}
