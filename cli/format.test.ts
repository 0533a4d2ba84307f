// netcli's human output as pure functions: the cases the command tests do not reach.
import { describe, expect, it } from 'vitest';
import { CLIENT_CONFIG_DEFAULTS, idleStatus, type LocalStatus } from '../contracts/index.js';
import { accountNumberText, bytesText } from './format/account.js';
import { formatStatus, formatWatchLine, statusHeadline } from './format/connection.js';
import { formatConfigChange } from './format/settings.js';
import { formatLatency, sortByLatency } from './format/regions.js';

const connected: LocalStatus = {
  ...idleStatus(true, true),
  status: 'connected',
  latency: '8.5ms',
  region: 'global',
  node: { id: 'zrh-1', region: 'global', endpoint: 'zrh-1.example:443' },
  protocol: 'ferry',
  cipher: 'AES-256-GCM',
  mode: 'stream',
  transport: 'tcp',
  interface: 'ferry3',
};

describe('netcli output', () => {
  it('says the transport when the tunnel runs over TCP', () => {
    expect(statusHeadline(connected)).toBe(
      'Connected to global (node zrh-1) over Ferry (TCP), AES-256-GCM',
    );
    expect(formatStatus(connected)[1]).toBe('Latency 8.5ms · stream mode · interface ferry3');
  });

  it('names both hops of a multihop connection, and a service reached through a relay', () => {
    const twoHops: LocalStatus = {
      ...connected,
      node: { ...connected.node!, entry: { id: 'sha-1', region: 'cn-east' } },
      api_access: {
        ...connected.api_access,
        in_use: 'relays',
        reason: 'the service cannot be reached directly from here: reached through a relay',
      },
    };
    expect(statusHeadline(twoHops)).toBe(
      'Connected to global (node zrh-1, entering at sha-1 in cn-east) over Ferry (TCP), AES-256-GCM',
    );
    expect(formatStatus(twoHops)).toContain(
      'Service   through relays: the service cannot be reached directly from here: reached through a relay',
    );
  });

  it('says which transport and why, in words', () => {
    const viaTls: LocalStatus = {
      ...connected,
      transport: 'tls',
      transport_reason: {
        code: 'fallback',
        blocked: [{ transport: 'udp', blockage: 'udp-unanswered' }],
        message: 'UDP looks blocked on this network: using TLS',
      },
    };
    expect(statusHeadline(viaTls)).toBe(
      'Connected to global (node zrh-1) over Ferry (TLS), AES-256-GCM',
    );
    expect(formatStatus(viaTls)[2]).toBe('Transport: UDP looks blocked on this network: using TLS');
    expect(statusHeadline({ ...connected, transport: 'udp' })).toBe(
      'Connected to global (node zrh-1) over Ferry, AES-256-GCM',
    );
  });

  it('says why an engine is in error, and that traffic is not protected', () => {
    const error: LocalStatus = {
      ...idleStatus(true, true),
      status: 'error',
      error: { code: 'node-unreachable', message: 'the node did not answer' },
    };
    expect(formatStatus(error)).toEqual([
      'Error: the node did not answer',
      'No tunnel: traffic leaves directly, unprotected.',
    ]);
    const failed = { ...error, status: 'disconnected' as const };
    expect(formatStatus(failed)).toEqual(['Disconnected', 'Last attempt: the node did not answer']);
  });

  it('stamps watch lines with the local time', () => {
    const at = new Date(2026, 4, 1, 9, 5, 7);
    expect(formatWatchLine({ event: 'status', data: connected }, at)).toBe(
      '09:05:07 Connected to global (node zrh-1) over Ferry (TCP), AES-256-GCM · 8.5ms',
    );
    expect(
      formatWatchLine({ event: 'notice', data: { code: 'x', message: 'keys rotated' } }, at),
    ).toBe('09:05:07 Note: keys rotated');
  });

  it('says why latency-check left nodes out', () => {
    const lines = formatLatency({
      results: [
        {
          node_id: 'hk-1',
          region: 'asia-east',
          method: 'ICMP echo to the node through the tunnel',
          samples: 2,
          avg_ms: 12,
          jitter_ms: 1,
          loss: 0,
        },
      ],
      duration_ms: 300,
      note: 'only the node in use is measured while connected',
    });
    expect(lines.at(-1)).toBe('Note: only the node in use is measured while connected.');
    expect(formatLatency({ results: [], duration_ms: 0, note: 'x' })).toEqual([
      'No node measured: x.',
    ]);
  });

  it('groups account numbers and counts bytes in binary units', () => {
    expect(accountNumberText('1234567890123456')).toBe('1234 5678 9012 3456');
    expect(bytesText(0)).toBe('0 B');
    expect(bytesText(1536)).toBe('1.5 KB');
    expect(bytesText(10 * 1024 ** 3)).toBe('10 GB');
    expect(bytesText(200 * 1024 ** 2)).toBe('200 MB');
  });

  it('shows a forgotten service as none', () => {
    const before = { ...CLIENT_CONFIG_DEFAULTS, service: 'https://ferry.example' };
    expect(
      formatConfigChange(before, {
        config: { ...before, service: null },
        changed: ['service'],
        effect: 'saved',
      }),
    ).toEqual([
      'service: https://ferry.example -> none',
      'Saved; it takes effect at the next connect.',
    ]);
  });

  it('says when the settings stayed but the tunnel reconnected with them', () => {
    const config = CLIENT_CONFIG_DEFAULTS;
    expect(formatConfigChange(config, { config, changed: [], effect: 'reconnected' })).toEqual([
      'Nothing changed in the settings; the tunnel reconnected with them.',
    ]);
    expect(formatConfigChange(config, { config, changed: [], effect: 'saved' })).toEqual([
      'Nothing changed.',
    ]);
  });

  it('sorts nodes that never answered last, and names each method when they differ', () => {
    const node = (id: string, avg: number | null, loss: number, method = 'UDP probe') => ({
      node_id: id,
      region: 'global',
      method,
      samples: 5,
      avg_ms: avg,
      jitter_ms: avg === null ? null : 1,
      loss,
    });
    const results = [
      node('dead', null, 1),
      node('slow', 80, 0),
      node('fast', 9.44, 0, 'keepalive RTT'),
    ];
    expect(sortByLatency(results).map((r) => r.node_id)).toEqual(['fast', 'slow', 'dead']);
    expect(formatLatency({ results, duration_ms: 1500 })).toEqual([
      'NODE  REGION  AVG    JITTER  LOSS  SAMPLES  METHOD',
      'fast  global  9.4ms  1.0ms   0%    5        keepalive RTT',
      'slow  global  80ms   1.0ms   0%    5        UDP probe',
      'dead  global  -      -       100%  5        UDP probe',
      'Took 1.5 s.',
    ]);
  });
});
