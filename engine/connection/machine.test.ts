// The connection state machine: exactly the allowed transitions, every change told with its
// reason, the status a user sees in each state, and the kill switch's rule.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  ConnectionStateMachine,
  ENGINE_STATES,
  formatLatency,
  INITIAL_SNAPSHOT,
  killSwitchHolds,
  reduce,
  type ConnectionChange,
  type ConnectionEvent,
  type ConnectionEventType,
  type ConnectionSnapshot,
  type EngineState,
} from './machine.js';
import { FerryError } from '../errors.js';

const target = {
  region: 'auto',
  protocol: 'wireguard',
  encryption: 'AES-256-GCM',
  mode: 'secure',
} as const;
const tunnel = {
  nodeId: 'node-1',
  region: 'asia-east',
  protocol: 'wireguard',
  cipher: 'ChaCha20-Poly1305',
  interfaceName: 'ferry0',
} as const;

const EVENTS: Record<Exclude<ConnectionEventType, 'latency'>, ConnectionEvent> = {
  connect: { type: 'connect', reason: 'user-connect', target },
  'tunnel-up': { type: 'tunnel-up', tunnel, latencyMs: 23.4 },
  'tunnel-lost': { type: 'tunnel-lost', reason: 'node-unreachable' },
  fail: { type: 'fail', error: { code: 'no-node-available', message: 'no node is available' } },
  disconnect: { type: 'disconnect', reason: 'user-disconnect' },
  'cleaned-up': { type: 'cleaned-up' },
};

const PATHS: Record<EngineState, (keyof typeof EVENTS)[]> = {
  disconnected: [],
  connecting: ['connect'],
  connected: ['connect', 'tunnel-up'],
  reconnecting: ['connect', 'tunnel-up', 'tunnel-lost'],
  disconnecting: ['connect', 'disconnect'],
  error: ['connect', 'fail'],
};

function reach(state: EngineState): ConnectionSnapshot {
  return PATHS[state].reduce((s, e) => reduce(s, EVENTS[e]), INITIAL_SNAPSHOT);
}

// Written out by hand from design.md, not derived from the table under test.
const EXPECTED: Record<EngineState, Partial<Record<keyof typeof EVENTS, EngineState>>> = {
  disconnected: { connect: 'connecting' },
  connecting: { 'tunnel-up': 'connected', fail: 'error', disconnect: 'disconnecting' },
  connected: { 'tunnel-lost': 'reconnecting', fail: 'error', disconnect: 'disconnecting' },
  reconnecting: { 'tunnel-up': 'connected', fail: 'error', disconnect: 'disconnecting' },
  disconnecting: { fail: 'error', 'cleaned-up': 'disconnected' },
  error: { connect: 'connecting', disconnect: 'disconnecting' },
};

describe('the transitions', () => {
  for (const state of ENGINE_STATES) {
    for (const type of Object.keys(EVENTS) as (keyof typeof EVENTS)[]) {
      const to = EXPECTED[state][type];
      it(`${state} + ${type} -> ${to ?? 'refused'}`, () => {
        const from = reach(state);
        expect(from.state).toBe(state);
        if (to) {
          expect(reduce(from, EVENTS[type]).state).toBe(to);
        } else {
          let thrown: unknown;
          try {
            reduce(from, EVENTS[type]);
          } catch (e) {
            thrown = e;
          }
          expect(thrown).toBeInstanceOf(FerryError);
          expect((thrown as FerryError).code).toBe('illegal-transition');
          expect((thrown as FerryError).message).toBe(
            `the connection cannot take "${type}" while ${state} (a bug in the engine)`,
          );
        }
      });
    }
  }
});

function recorded() {
  const machine = new ConnectionStateMachine();
  const changes: ConnectionChange[] = [];
  machine.on((c) => changes.push(c));
  return { machine, changes };
}

describe('the connection state machine', () => {
  it('starts disconnected with nothing to show', () => {
    expect(new ConnectionStateMachine().status()).toEqual({
      status: 'disconnected',
      reason: 'initial',
      latency: null,
      region: null,
      node: null,
      protocol: null,
      cipher: null,
      error: null,
    });
  });

  it('tells every change with its reason, and shows what the user needs while connected', () => {
    const { machine, changes } = recorded();
    machine.dispatch(EVENTS.connect);
    expect(machine.status()).toMatchObject({ status: 'connecting', region: 'auto', latency: null });
    machine.dispatch(EVENTS['tunnel-up']);
    expect(machine.status()).toEqual({
      status: 'connected',
      reason: 'tunnel-up',
      latency: '23ms',
      region: 'asia-east',
      node: 'node-1',
      protocol: 'wireguard',
      cipher: 'ChaCha20-Poly1305',
      error: null,
    });
    machine.dispatch({ type: 'latency', latencyMs: 31.6 });
    machine.dispatch(EVENTS.disconnect);
    machine.dispatch(EVENTS['cleaned-up']);
    expect(
      changes.map((c) => (c.kind === 'state' ? [c.from, c.to, c.reason] : ['latency', c.latency])),
    ).toEqual([
      ['disconnected', 'connecting', 'user-connect'],
      ['connecting', 'connected', 'tunnel-up'],
      ['latency', '32ms'],
      ['connected', 'disconnecting', 'user-disconnect'],
      ['disconnecting', 'disconnected', 'cleaned-up'],
    ]);
    expect(machine.snapshot).toEqual({ ...INITIAL_SNAPSHOT, reason: 'cleaned-up' });
  });

  it('shows no latency, node or cipher while reconnecting, and the region asked for', () => {
    const { machine } = recorded();
    machine.dispatch({ ...EVENTS.connect, target: { ...target, region: 'asia-east' } } as never);
    machine.dispatch(EVENTS['tunnel-up']);
    machine.dispatch({ type: 'tunnel-lost', reason: 'settings-changed' });
    expect(machine.status()).toMatchObject({
      status: 'reconnecting',
      reason: 'settings-changed',
      latency: null,
      region: 'asia-east',
      node: null,
      cipher: null,
    });
    machine.dispatch({ type: 'tunnel-up', tunnel: { ...tunnel, nodeId: 'node-2' }, latencyMs: 5 });
    expect(machine.status()).toMatchObject({ status: 'connected', node: 'node-2', latency: '5ms' });
  });

  it('drops a latency that arrives when no tunnel is up, and refuses nonsense', () => {
    const { machine, changes } = recorded();
    machine.dispatch({ type: 'latency', latencyMs: 12 });
    machine.dispatch(EVENTS.connect);
    machine.dispatch({ type: 'latency', latencyMs: 12 });
    expect(changes).toHaveLength(1);
    expect(machine.status().latency).toBeNull();
    machine.dispatch(EVENTS['tunnel-up']);
    for (const bad of [NaN, -1, Infinity])
      expect(() => machine.dispatch({ type: 'latency', latencyMs: bad })).toThrow(FerryError);
    expect(machine.status().latency).toBe('23ms');
  });

  it('keeps the failure and the target in error, until a retry or a disconnect', () => {
    const { machine } = recorded();
    machine.dispatch(EVENTS.connect);
    machine.dispatch(EVENTS.fail);
    expect(machine.status()).toMatchObject({
      status: 'error',
      reason: 'failed',
      region: 'auto',
      error: { code: 'no-node-available', message: 'no node is available' },
    });
    machine.dispatch({ type: 'connect', reason: 'retry', target });
    expect(machine.status()).toMatchObject({ status: 'connecting', reason: 'retry', error: null });
  });

  it('leaves the state unchanged and tells no one when it refuses', () => {
    const { machine, changes } = recorded();
    expect(() => machine.dispatch(EVENTS['cleaned-up'])).toThrow(/a bug in the engine/);
    expect(machine.state).toBe('disconnected');
    expect(changes).toEqual([]);
    expect(machine.allows('cleaned-up')).toBe(false);
    expect(machine.allows('connect')).toBe(true);
  });

  it('tells the other listeners when one throws, then rethrows', () => {
    const machine = new ConnectionStateMachine();
    const seen: string[] = [];
    machine.on(() => {
      throw new Error('listener bug');
    });
    machine.on((c) => seen.push(c.kind));
    expect(() => machine.dispatch(EVENTS.connect)).toThrow('listener bug');
    expect(seen).toEqual(['state']);
    expect(machine.state).toBe('connecting');
  });

  it('stops telling a listener that unsubscribed', () => {
    const machine = new ConnectionStateMachine();
    const seen: string[] = [];
    const off = machine.on((c) => seen.push(c.kind));
    machine.dispatch(EVENTS.connect);
    off();
    machine.dispatch(EVENTS.disconnect);
    expect(seen).toEqual(['state']);
  });

  it('hands out snapshots nobody can change', () => {
    const asked = { ...target };
    const machine = new ConnectionStateMachine();
    const s = machine.dispatch({ type: 'connect', reason: 'user-connect', target: asked });
    asked.region = 'global' as never;
    expect(s.target?.region).toBe('auto');
    expect(Object.isFrozen(s)).toBe(true);
  });
});

describe('the kill switch rule', () => {
  it('holds in every state but disconnected when enabled, and never when disabled', () => {
    for (const state of ENGINE_STATES) {
      expect(killSwitchHolds(state, true)).toBe(state !== 'disconnected');
      expect(killSwitchHolds(state, false)).toBe(false);
    }
  });
});

describe('latency readouts', () => {
  it('read "<n>ms", whole above 10 ms and to a tenth below', () => {
    expect(formatLatency(23.4)).toBe('23ms');
    expect(formatLatency(9.96)).toBe('10ms');
    expect(formatLatency(0.34)).toBe('0.3ms');
    expect(formatLatency(4)).toBe('4ms');
    expect(formatLatency(0)).toBe('0ms');
    fc.assert(
      fc.property(fc.double({ min: 0, max: 60_000, noNaN: true }), (ms) => {
        expect(formatLatency(ms)).toMatch(/^\d+(\.\d)?ms$/);
      }),
    );
  });
});
