// DNS messages on the wire: only one well-formed query is taken, only the answer to our query
// (its ID and its question) counts, and TCP framing splits partial reads right.
import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { answerRcode, frame, parseQuery, servfail, takeMessages, withId } from './wire.js';

const question = { type: 'A', name: 'www.example', class: 'IN' } as const;
const query = (id = 7) =>
  dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [question],
  });
const answer = (id: number, o: { name?: string; rcode?: number; questions?: boolean } = {}) =>
  dnsPacket.encode({
    type: 'response',
    id,
    flags: o.rcode ?? 0,
    questions: o.questions === false ? [] : [{ ...question, name: o.name ?? question.name }],
  });

describe('parseQuery', () => {
  it('takes a query with one question, raw bytes and all', () => {
    const raw = query(0x1234);
    expect(parseQuery(raw)).toEqual({
      raw,
      id: 0x1234,
      flags: dnsPacket.RECURSION_DESIRED,
      question: question,
    });
  });

  it('rejects answers, other question counts, other opcodes and garbage', () => {
    const twoQuestions = dnsPacket.encode({
      type: 'query',
      id: 1,
      questions: [question, { ...question, name: 'other.example' }],
    });
    const noQuestion = dnsPacket.encode({ type: 'query', id: 2, questions: [] });
    const notify = dnsPacket.encode({
      type: 'query',
      id: 3,
      flags: 4 << 11,
      questions: [question],
    });
    for (const message of [
      answer(1),
      twoQuestions,
      noQuestion,
      notify,
      Buffer.from('hello'),
      Buffer.alloc(0),
      query().subarray(0, 20),
    ])
      expect(parseQuery(message)).toBeUndefined();
  });
});

describe('answerRcode', () => {
  it('takes the answer with our ID and our question, the name in any letter case', () => {
    expect(answerRcode(answer(9), 9, question)).toBe('NOERROR');
    expect(answerRcode(answer(9, { name: 'WwW.ExAmPlE' }), 9, question)).toBe('NOERROR');
    expect(answerRcode(answer(9, { rcode: 5 }), 9, question)).toBe('REFUSED');
  });

  it('ignores another ID, another question, a query and garbage', () => {
    expect(answerRcode(answer(10), 9, question)).toBeUndefined();
    expect(answerRcode(answer(9, { name: 'evil.example' }), 9, question)).toBeUndefined();
    expect(answerRcode(answer(9), 9, { ...question, type: 'AAAA' })).toBeUndefined();
    expect(answerRcode(query(9), 9, question)).toBeUndefined();
    expect(answerRcode(Buffer.from('junk'), 9, question)).toBeUndefined();
  });

  it('takes an error answer without the question, but no success without it', () => {
    expect(answerRcode(answer(9, { rcode: 1, questions: false }), 9, question)).toBe('FORMERR');
    expect(answerRcode(answer(9, { questions: false }), 9, question)).toBeUndefined();
    expect(answerRcode(answer(9, { rcode: 3, questions: false }), 9, question)).toBeUndefined();
  });
});

describe('withId and servfail', () => {
  it('changes the ID only', () => {
    const raw = answer(1);
    const moved = withId(raw, 0xbeef);
    expect(moved.readUInt16BE(0)).toBe(0xbeef);
    expect(moved.subarray(2)).toEqual(raw.subarray(2));
    expect(raw.readUInt16BE(0)).toBe(1);
  });

  it("answers SERVFAIL under the client's ID with its question and RD bit", () => {
    const decoded = dnsPacket.decode(servfail(parseQuery(query(0x4242))!));
    expect(decoded).toMatchObject({
      id: 0x4242,
      type: 'response',
      flag_rd: true,
      flag_ra: true,
      questions: [question],
    });
    expect((decoded as { rcode?: string }).rcode).toBe('SERVFAIL');
  });
});

describe('takeMessages', () => {
  it('splits whole messages off and keeps a partial one for later', () => {
    const a = query(1);
    const b = query(2);
    const stream = Buffer.concat([frame(a), frame(b)]);
    const cut = frame(a).length + 5;
    const first = takeMessages(stream.subarray(0, cut), 10);
    expect(first.messages).toEqual([a]);
    expect(first.rest).toEqual(stream.subarray(frame(a).length, cut));
    const second = takeMessages(Buffer.concat([first.rest, stream.subarray(cut)]), 10);
    expect(second.messages).toEqual([b]);
    expect(second.rest.length).toBe(0);
  });

  it('waits for a length prefix split in two, and takes at most `max`', () => {
    expect(takeMessages(Buffer.from([0]), 10)).toEqual({ messages: [], rest: Buffer.from([0]) });
    const stream = Buffer.concat([frame(query(1)), frame(query(2)), frame(query(3))]);
    const { messages, rest } = takeMessages(stream, 2);
    expect(messages).toEqual([query(1), query(2)]);
    expect(rest).toEqual(frame(query(3)));
    expect(takeMessages(stream, 0).messages).toEqual([]);
  });
});
