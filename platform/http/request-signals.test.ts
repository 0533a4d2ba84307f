// Per-request abort signals: they abort when a client goes away before its answer, not after a
// whole answer, and all at once at shutdown (with every later request's born aborted).
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { RequestSignals } from './request-signals.js';

/** Just what RequestSignals reads of a response: its close, and whether it was finished. */
function response(): ServerResponse & { finish(): void } {
  const res = new EventEmitter() as unknown as ServerResponse & { finish(): void };
  (res as { writableFinished: boolean }).writableFinished = false;
  res.finish = () => {
    (res as { writableFinished: boolean }).writableFinished = true;
    res.emit('close');
  };
  return res;
}

describe('request signals', () => {
  it('aborts a request whose client went away, not one answered in full', () => {
    const signals = new RequestSignals();
    const gone = response();
    const answered = response();
    const a = signals.forRequest(gone);
    const b = signals.forRequest(answered);
    expect(signals.size).toBe(2);
    gone.emit('close');
    answered.finish();
    expect(a.aborted).toBe(true);
    expect(b.aborted).toBe(false);
    expect(signals.size).toBe(0);
  });

  it('aborts every open request at shutdown, and each later one at once', () => {
    const signals = new RequestSignals();
    const open = signals.forRequest(response());
    expect(signals.closing).toBe(false);
    signals.abortAll();
    expect(signals.closing).toBe(true);
    expect(open.aborted).toBe(true);
    expect(signals.forRequest(response()).aborted).toBe(true);
    expect(signals.size).toBe(0);
  });
});
