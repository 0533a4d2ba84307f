// The resolver's cache: an answer is held as long as its TTL by the cache's own clock, names in
// any letter case are one name, a DNSSEC client's answers are kept apart, the oldest answer
// makes room, and nothing is held that is not to be held.
import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';

import { AnswerCache } from './answer-cache.js';
import { readAnswer, type Answer } from './messages.js';

function answerFor(address: string): Answer {
  const answer = readAnswer(
    dnsPacket.encode({
      type: 'response',
      id: 0,
      flags: dnsPacket.RECURSION_AVAILABLE,
      questions: [{ type: 'A', name: 'www.example.cn', class: 'IN' }],
      answers: [{ type: 'A', name: 'www.example.cn', ttl: 60, class: 'IN', data: address }],
    }),
  );
  if (!answer) throw new Error('not an answer');
  return answer;
}

/** A clock the test moves, in milliseconds. */
function clock(start = 1_000_000) {
  const c = { ms: start, now: () => c.ms };
  return c;
}

const KEY = AnswerCache.key('www.example.cn', 'A', false);

describe('AnswerCache', () => {
  it('holds an answer until its TTL is up by the injected clock, then forgets it', () => {
    const c = clock();
    const cache = new AnswerCache(c.now);
    const answer = answerFor('192.0.2.1');
    cache.put(KEY, answer, 10);
    expect(cache.get(KEY)?.answer).toBe(answer);
    c.ms += 9_999;
    expect(cache.get(KEY)?.answer).toBe(answer);
    c.ms += 1;
    expect(cache.get(KEY)).toBeNull();
    expect(cache.size).toBe(0);
  });

  it('says how many whole seconds an answer has been held', () => {
    const c = clock();
    const cache = new AnswerCache(c.now);
    cache.put(KEY, answerFor('192.0.2.1'), 60);
    expect(cache.get(KEY)?.elapsedS).toBe(0);
    c.ms += 2_500;
    expect(cache.get(KEY)?.elapsedS).toBe(2);
    c.ms += 40_000;
    expect(cache.get(KEY)?.elapsedS).toBe(42);
  });

  it('takes a name in any letter case, with or without the root’s dot, as one name', () => {
    expect(AnswerCache.key('WWW.Example.CN.', 'A', false)).toBe(KEY);
    const cache = new AnswerCache(clock().now);
    const answer = answerFor('192.0.2.1');
    cache.put(AnswerCache.key('WwW.ExAmPlE.cn', 'A', false), answer, 60);
    expect(cache.get(AnswerCache.key('www.example.cn.', 'A', false))?.answer).toBe(answer);
  });

  it('keeps a DNSSEC client’s answers (DO) and other types apart', () => {
    const cache = new AnswerCache(clock().now);
    const plain = answerFor('192.0.2.1');
    cache.put(KEY, plain, 60);
    const signed = AnswerCache.key('www.example.cn', 'A', true);
    expect(signed).not.toBe(KEY);
    expect(cache.get(signed)).toBeNull();
    expect(cache.get(AnswerCache.key('www.example.cn', 'AAAA', false))).toBeNull();
    const withSignatures = answerFor('192.0.2.2');
    cache.put(signed, withSignatures, 60);
    expect(cache.get(signed)?.answer).toBe(withSignatures);
    expect(cache.get(KEY)?.answer).toBe(plain);
  });

  it('makes room by dropping the oldest answer when full', () => {
    const cache = new AnswerCache(clock().now, 2);
    const key = (n: string) => AnswerCache.key(`${n}.example.cn`, 'A', false);
    cache.put(key('a'), answerFor('192.0.2.1'), 60);
    cache.put(key('b'), answerFor('192.0.2.2'), 60);
    cache.put(key('c'), answerFor('192.0.2.3'), 60);
    expect(cache.size).toBe(2);
    expect(cache.get(key('a'))).toBeNull();
    expect(cache.get(key('b'))).not.toBeNull();
    expect(cache.get(key('c'))).not.toBeNull();
    // An answer stored again is the newest: the one after it goes first.
    cache.put(key('b'), answerFor('192.0.2.4'), 60);
    cache.put(key('d'), answerFor('192.0.2.5'), 60);
    expect(cache.get(key('c'))).toBeNull();
    expect(answerOf(cache.get(key('b'))?.answer)).toBe('192.0.2.4');
    expect(cache.get(key('d'))).not.toBeNull();
  });

  it('does not hold an answer whose TTL is 0', () => {
    const cache = new AnswerCache(clock().now);
    cache.put(KEY, answerFor('192.0.2.1'), 0);
    expect(cache.get(KEY)).toBeNull();
    expect(cache.size).toBe(0);
  });

  it('forgets everything when cleared', () => {
    const cache = new AnswerCache(clock().now);
    cache.put(KEY, answerFor('192.0.2.1'), 60);
    cache.put(AnswerCache.key('other.example', 'A', false), answerFor('192.0.2.2'), 60);
    expect(cache.size).toBe(2);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.get(KEY)).toBeNull();
  });
});

function answerOf(answer: Answer | undefined): string | undefined {
  const first = answer?.packet.answers?.[0];
  return first?.type === 'A' ? first.data : undefined;
}
