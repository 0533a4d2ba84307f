// The words and view models the screens show: pure functions of the engine's values.
import { describe, expect, it } from 'vitest';
import { IDLE_PROTECTION } from '../../../contracts/local-api.js';
import { connectedStatus } from '../../store/engine-answers.fake.js';
import { bytesWords, groupedAccountNumber } from './amounts.js';
import { connectButton, latencyWords, tunnelFacts } from './connection-words.js';
import { killSwitchWords, splitWords } from './protection-words.js';

describe('connectButton', () => {
  it('connects when disconnected or after an error', () => {
    expect(connectButton('disconnected', false)).toEqual({ label: 'Connect', action: 'connect' });
    expect(connectButton('error', false)).toEqual({ label: 'Connect', action: 'connect' });
  });

  it('cancels while connecting, by the engine’s state or our own request', () => {
    expect(connectButton('connecting', false)).toEqual({ label: 'Cancel', action: 'disconnect' });
    expect(connectButton('disconnected', true)).toEqual({ label: 'Cancel', action: 'disconnect' });
  });

  it('disconnects a live tunnel, and waits while disconnecting', () => {
    expect(connectButton('connected', false).label).toBe('Disconnect');
    expect(connectButton('connected', true).label).toBe('Disconnect');
    expect(connectButton('reconnecting', false).label).toBe('Disconnect');
    expect(connectButton('disconnecting', false).action).toBeNull();
  });
});

describe('connection and protection words', () => {
  it('say the tunnel’s facts and the latency in words', () => {
    expect(tunnelFacts(connectedStatus())).toBe('WireGuard · ChaCha20-Poly1305 · UDP');
    expect(tunnelFacts(connectedStatus({ mode: 'stream', platform: 'netflix' }))).toMatch(
      /stream mode \(netflix\)$/,
    );
    expect(latencyWords('42ms')).toBe('42 ms');
    expect(latencyWords('4.5ms')).toBe('4.5 ms');
    expect(latencyWords(null)).toBeNull();
  });

  it('tell an armed kill switch from an active one, and no split without a tunnel', () => {
    expect(killSwitchWords(IDLE_PROTECTION)).toMatch(/^On: .*next connect/);
    expect(killSwitchWords({ ...IDLE_PROTECTION, kill_switch: 'active' })).toMatch(/^Active/);
    expect(killSwitchWords({ ...IDLE_PROTECTION, kill_switch: 'off' })).toMatch(/^Off/);
    expect(splitWords(IDLE_PROTECTION, false)).toBe('Not in effect: no tunnel is up');
    expect(splitWords({ ...IDLE_PROTECTION, split: 'by-country', home_country: 'DE' }, true)).toBe(
      'Only cross-border traffic goes through the tunnel (home: DE)',
    );
  });
});

describe('amounts', () => {
  it('reads data amounts and account numbers as people do', () => {
    expect(bytesWords(512)).toBe('512 bytes');
    expect(bytesWords(3 * 1024 ** 3)).toBe('3 GB');
    expect(bytesWords(1.5 * 1024 ** 2)).toBe('1.5 MB');
    expect(groupedAccountNumber('1234567812345678')).toBe('1234 5678 1234 5678');
  });
});
