// What the engine's resolver answers a name with: the tunnel's resolver first; an answer wholly at
// home asked again of the home network's resolver (so the site is reached at its domestic edge,
// directly); a split rule's names the rule's way, their addresses put in the rule's set before
// the answer leaves. Nothing here is logged: not a name, not an address.
import dnsPacket from 'dns-packet';

import { splitRuleFor, type SplitRule, type SplitVia } from '../../contracts/index.js';
import type { ExchangeResult } from '../../platform/dns/exchange.js';
import type { DnsQuery, DnsTransport } from '../../platform/dns/wire.js';
import { AnswerCache } from './answer-cache.js';
import {
  answerAddresses,
  answerTtl,
  clientAnswer,
  clientAsk,
  readAnswer,
  upstreamQuery,
  type Answer,
} from './messages.js';

/** Resolvers asked in turn (UpstreamSet): the tunnel's, or the home network's. */
export interface Upstreams {
  ask(
    query: DnsQuery,
    transport: DnsTransport,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<ExchangeResult>;
}

/** Where names are asked while connected. */
export interface ResolverRoutes {
  /** The tunnel's resolvers (the node's, or the `dns` setting), asked through the tunnel. */
  tunnel: Upstreams;
  /** The home network's resolvers, asked around the tunnel; null: none known. */
  home: Upstreams | null;
  /**
   * Whether an address is in the home country (the split by country's data); null: the split by
   * country is off or its country unknown, and no name is asked at home for being domestic.
   */
  isHome: ((address: string) => boolean) | null;
}

/** Puts a rule's addresses in its set (RuleAddresses). */
export interface RuleSets {
  add(via: SplitVia, addresses: readonly string[], ttlS: number): Promise<void>;
}

/** The budgets of one question: the tunnel's resolver, then the home network's. */
export const TUNNEL_BUDGET_MS = 3_000;
export const HOME_BUDGET_MS = 1_500;

export class SplitResolver {
  readonly #cache: AnswerCache;
  #rules: readonly SplitRule[] = [];

  constructor(
    private routes: ResolverRoutes,
    private readonly ruleSets: RuleSets,
    cache = new AnswerCache(),
  ) {
    this.#cache = cache;
  }

  /** New routes (a new connection, the `dns` or split settings changed): nothing cached holds. */
  setRoutes(routes: ResolverRoutes): void {
    this.routes = routes;
    this.#cache.clear();
  }

  /** The split rules changed: what was cached for their names may have come the other way. */
  setRules(rules: readonly SplitRule[]): void {
    this.#rules = [...rules];
    this.#cache.clear();
  }

  get cached(): number {
    return this.#cache.size;
  }

  /**
   * The client's answer to `query`, null when no resolver answered (SERVFAIL). `program`: the
   * way of the program that asks (a split rule by program, netcli exec), null for any other: a
   * `direct` program's names are asked at home only (the tunnel's resolver only when no home
   * resolver is known), a `tunnel` program's through the tunnel only.
   */
  async answer(
    query: DnsQuery,
    transport: DnsTransport,
    signal: AbortSignal,
    program: SplitVia | null = null,
  ): Promise<Buffer | null> {
    const ask = clientAsk(query);
    const { name, type } = query.question;
    const rule = splitRuleFor(this.#rules, name);
    const key =
      AnswerCache.key(name, type, ask.dnssecOk, (query.flags & dnsPacket.CHECKING_DISABLED) !== 0) +
      (program ? ` @${program}` : '');
    const cached = this.#cache.get(key);
    if (cached) {
      // The set may have been made anew since (a reconnect): the rule holds for this answer too.
      if (rule)
        await this.ruleSets.add(
          rule.via,
          answerAddresses(cached.answer),
          answerTtl(cached.answer) - cached.elapsedS,
        );
      return clientAnswer(cached.answer, ask, transport, cached.elapsedS);
    }
    const upstream = upstreamQuery(ask);
    const answer =
      program === 'direct' && this.routes.home
        ? await askFor(this.routes.home, upstream, HOME_BUDGET_MS, signal)
        : await this.resolve(upstream, program ?? rule?.via ?? null, signal);
    if (!answer) return null;
    // Before the answer leaves: the program's first packet to these addresses takes the rule's way.
    if (rule) await this.ruleSets.add(rule.via, answerAddresses(answer), answerTtl(answer));
    this.#cache.put(key, answer, answerTtl(answer));
    return clientAnswer(answer, ask, transport);
  }

  private async resolve(
    upstream: DnsQuery,
    via: SplitVia | null,
    signal: AbortSignal,
  ): Promise<Answer | null> {
    const { tunnel, home, isHome } = this.routes;
    // A `direct` rule's names are the user's to have asked at home (the site is reached from
    // there); without a home resolver the tunnel's answers, and the addresses still go direct.
    if (via === 'direct' && home) {
      const local = await askFor(home, upstream, HOME_BUDGET_MS, signal);
      // A home resolver that fails or refuses: the tunnel's answers instead (still direct).
      if (local && local.rcode !== 'SERVFAIL' && local.rcode !== 'REFUSED') return local;
      return askFor(tunnel, upstream, TUNNEL_BUDGET_MS, signal);
    }
    const answer = await askFor(tunnel, upstream, TUNNEL_BUDGET_MS, signal);
    if (via !== null || !answer || !home || !isHome || upstream.question.type !== 'A')
      return answer;
    if (!atHome(answer, isHome)) return answer;
    // Wholly at home: the home network's resolver knows the nearer edge. Its answer counts only
    // if it is at home too (a forged answer for a domestic name would point abroad).
    const local = await askFor(home, upstream, HOME_BUDGET_MS, signal);
    return local && atHome(local, isHome) ? local : answer;
  }
}

/** Whether an answer gives addresses and every one is at home. */
function atHome(answer: Answer, isHome: (address: string) => boolean): boolean {
  if (answer.rcode !== 'NOERROR') return false;
  const addresses = answerAddresses(answer);
  return addresses.length > 0 && addresses.every(isHome);
}

/**
 * The answer of `upstreams` to our query, over UDP and again over TCP when it came truncated;
 * null when none answered (their SERVFAIL or REFUSED is an answer, passed on).
 */
async function askFor(
  upstreams: Upstreams,
  query: DnsQuery,
  budgetMs: number,
  signal: AbortSignal,
): Promise<Answer | null> {
  const started = performance.now();
  const udp = await upstreams.ask(query, 'udp', budgetMs, signal);
  if (udp.kind === 'failed') return null;
  const answer = readAnswer(udp.answer);
  if (!answer) return null;
  if (!answer.packet.flag_tc) return answer;
  const left = budgetMs - (performance.now() - started);
  if (left <= 0) return null;
  const tcp = await upstreams.ask(query, 'tcp', left, signal);
  return tcp.kind === 'answer' ? readAnswer(tcp.answer) : null;
}
