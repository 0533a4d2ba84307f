// The engine's resolver's answers, each held as long as its TTL says (memory only, never
// written anywhere, emptied whenever where names are asked changes), and at most so many.
import { canonicalName } from '../../contracts/index.js';
import type { Answer } from './messages.js';

export interface CachedAnswer {
  answer: Answer;
  /** Seconds it has been held (what its TTLs lose). */
  elapsedS: number;
}

/** An answer and when it stops being good, in the clock's milliseconds. */
interface Entry {
  answer: Answer;
  storedMs: number;
  expiresMs: number;
}

export const CACHE_LIMIT = 10_000;

export class AnswerCache {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly limit = CACHE_LIMIT,
  ) {}

  /**
   * The key of a question: names are case-insensitive; a DNSSEC client gets signed answers, and
   * one that turned checking off (CD) answers no validating client would have got.
   */
  static key(name: string, type: string, dnssecOk: boolean, checkingDisabled = false): string {
    const n = canonicalName(name);
    return `${n} ${type}${dnssecOk ? ' do' : ''}${checkingDisabled ? ' cd' : ''}`;
  }

  get(key: string): CachedAnswer | null {
    const e = this.#entries.get(key);
    if (!e) return null;
    const now = this.now();
    if (now >= e.expiresMs) {
      this.#entries.delete(key);
      return null;
    }
    return { answer: e.answer, elapsedS: Math.floor((now - e.storedMs) / 1000) };
  }

  /** Holds `answer` for `ttlS` seconds (0: not at all); the oldest goes when the cache is full. */
  put(key: string, answer: Answer, ttlS: number): void {
    if (ttlS <= 0) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.limit) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    const now = this.now();
    this.#entries.set(key, { answer, storedMs: now, expiresMs: now + ttlS * 1000 });
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
