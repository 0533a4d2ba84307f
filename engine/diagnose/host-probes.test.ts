// The real host probes on this host: TCP connects to a local listener and a closed port (and, as
// root, from a marked socket), a lookup through the system resolver, ping's and ip's argv and
// answers read.
import { execFileSync } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandOutput } from '../../platform/os/command.js';
import {
  connectTcp,
  hostProbes,
  leavesOutsideTunnels,
  lookupIpv4,
  pingSizeArgs,
  tcpOutcomeOf,
} from './host-probes.js';

const signal = new AbortController().signal;
let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((s) => s.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((r) => server.close(r)));

describe('connectTcp', () => {
  it('tells connected from refused, and reads blocked and timeout from errno', async () => {
    expect(await connectTcp('127.0.0.1', port, 2_000, signal)).toBe('connected');
    // A port of the listener's, closed again: nothing listens there.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const free = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await connectTcp('127.0.0.1', free, 2_000, signal)).toBe('refused');
    expect(tcpOutcomeOf('EPERM')).toBe('blocked');
    expect(tcpOutcomeOf('EACCES')).toBe('blocked');
    expect(tcpOutcomeOf('ETIMEDOUT')).toBe('timeout');
    expect(tcpOutcomeOf('ENETUNREACH')).toBe('unreachable');
  });

  it('connects from a socket with a mark when given one (the node check, which the kill switch lets out by it)', async () => {
    const marks: (string | undefined)[] = [];
    const marked = createServer((s: Socket) => {
      const ss = execFileSync('ss', ['-tane', `sport = :${s.remotePort}`], { encoding: 'utf8' });
      marks.push(/fwmark:(0x[0-9a-f]+)/.exec(ss)?.[1]);
      s.destroy();
    });
    await new Promise<void>((r) => marked.listen(0, '127.0.0.1', r));
    try {
      const at = (marked.address() as AddressInfo).port;
      expect(await connectTcp('127.0.0.1', at, 2_000, signal, { mark: 0x6665 })).toBe('connected');
      await new Promise((r) => setTimeout(r, 50));
      expect(marks).toEqual(['0x6665']);
    } finally {
      await new Promise((r) => marked.close(r));
    }
  });

  it('rejects with the reason when aborted', async () => {
    const c = new AbortController();
    // TEST-NET-1 never answers: the connect waits until the abort.
    const attempt = connectTcp('192.0.2.1', 9, 5_000, c.signal);
    c.abort(new Error('stop'));
    await expect(attempt).rejects.toThrow('stop');
  });
});

describe('lookupIpv4', () => {
  it('asks the system resolver, as apps do', async () => {
    expect(await lookupIpv4('localhost', 2_000, signal)).toContain('127.0.0.1');
  });
});

describe('ping and ip', () => {
  it('pings with DF set, the size given, on the interface', () => {
    expect(pingSizeArgs('fytmain1a2b', '10.64.0.1', 1392)).toEqual([
      '-n',
      '-M',
      'do',
      '-c',
      '2',
      '-i',
      '0.2',
      '-W',
      '1',
      '-s',
      '1392',
      '-I',
      'fytmain1a2b',
      '10.64.0.1',
    ]);
    expect(() => pingSizeArgs('-x', '10.64.0.1', 1)).toThrow(TypeError);
    expect(() => pingSizeArgs('fyt0', 'fd00::1', 1)).toThrow(TypeError);
  });

  it('reads an IPv6 route: outside by a physical link, not by a tunnel, loopback or none', async () => {
    expect(leavesOutsideTunnels([{ dev: 'eth0' }])).toBe(true);
    expect(leavesOutsideTunnels([{ dev: 'fytmain1a2b' }])).toBe(false);
    expect(leavesOutsideTunnels([{ dev: 'lo', type: 'unreachable' }])).toBe(false);
    expect(leavesOutsideTunnels([])).toBe(false);
    const answers: Partial<CommandOutput>[] = [
      { stdout: '[{"dst":"2001:db8::1","gateway":"fe80::1","dev":"eth0"}]' },
      { exitCode: 2, stderr: 'RTNETLINK answers: Network is unreachable' },
    ];
    const calls: string[] = [];
    const probes = hostProbes(async (tool, args) => {
      calls.push([tool, ...args].join(' '));
      return { exitCode: 0, stdout: '', stderr: '', ...answers.shift() };
    });
    expect(await probes.ipv6RouteOutside('2001:db8::1')).toBe(true);
    expect(await probes.ipv6RouteOutside('2001:db8::1')).toBe(false);
    expect(calls).toEqual(['ip -6 -j route get 2001:db8::1', 'ip -6 -j route get 2001:db8::1']);
  });
});
