// runDiagnostics with every part faked: the report in the ids' order with its counts, the leak
// checks fed from what the control plane publishes, a hung check cut off at the bound (the rest
// reported), a failing check turned into a warning, and the caller's abort.
import { describe, expect, it } from 'vitest';
import {
  DIAGNOSTIC_CHECK_IDS,
  IDLE_API_ACCESS,
  IDLE_PROTECTION,
  type FetchLike,
} from '../../contracts/index.js';
import { FerryError } from '../errors.js';
import { runDiagnostics, type DiagnoseDeps } from './run.js';

const NOW = new Date('2026-05-04T10:00:00.000Z');

const controlPlane: FetchLike = async (url) => {
  const path = new URL(url).pathname;
  const body = path.endsWith('/health')
    ? { status: 'ok', version: '0.1.0', api: 'v1' }
    : { dns_leak_zone: 'whoami.ferry-test', ipv6_probe: '[2001:db8::53]:443' };
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'content-type': 'application/json', date: new Date().toUTCString() },
  });
};

/** A connected, healthy host; `over` replaces parts. */
function deps(over: Partial<DiagnoseDeps> = {}): DiagnoseDeps & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    engine: { state: 'connected', nodeId: 'hk-1' },
    apiAccess: {
      ...IDLE_API_ACCESS,
      in_use: 'direct',
      relay_list: {
        ...IDLE_API_ACCESS.relay_list,
        relays: 2,
        source: 'service',
        key_from: 'config',
      },
    },
    control: { service: 'https://ferry.example', fetch: controlPlane },
    node: {
      tunnel: { nodeId: 'hk-1', transport: 'udp', notices: [] },
      node: async () => ({ none: 'unused' }),
      allow: async () => true,
      probeUdp: async () => 10,
      connectTcp: async () => 'connected',
    },
    censorship: {
      status: {
        status: 'connected',
        transport: 'udp',
        transport_reason: { code: 'first-choice', blocked: [], message: 'using UDP' },
      },
      obfuscation: 'auto',
      remembered: async () => 'udp',
    },
    dns: {
      connected: true,
      expected: ['198.19.5.20'],
      configured: null,
      lookup: async (name) => {
        asked.push(`lookup ${name.replace(/^[0-9a-f]+/, '<label>')}`);
        return ['198.19.5.20'];
      },
    },
    ipv6: {
      connected: true,
      routeOutside: async () => true,
      connectTcp: async (address, port) => {
        asked.push(`tcp6 [${address}]:${port}`);
        return 'blocked';
      },
      blocksIpv6: true,
    },
    mtu: {
      tunnel: { interfaceName: 'fytmain1a2b', gateway: '10.64.0.1', mtu: 1420 },
      ping: async () => true,
    },
    killSwitch: {
      setting: true,
      lockdown: false,
      stage: 'off',
      policy: null,
      inspect: async () => null,
    },
    split: { protection: IDLE_PROTECTION, setting: 'off', active: true, describe: () => null },
    domesticDns: {
      connected: true,
      home: 'DE',
      isHome: (address) => address.startsWith('192.0.2.'),
      resolver: { address: '127.102.121.53', zone: 'ferry-resolver.internal' },
      lookup: async (name) => {
        asked.push(`lookup ${name.replace(/^[0-9a-f]+\./, '<label>.')}`);
        return name.endsWith('ferry-resolver.internal') ? ['127.102.121.53'] : ['192.0.2.8'];
      },
    },
    ...over,
  };
}

describe('runDiagnostics', () => {
  it('reports every check in order, counted, with the leak checks fed by the control plane', async () => {
    const d = deps();
    const report = await runDiagnostics(d, { now: () => NOW });
    expect(report.checks.map((c) => c.id)).toEqual([...DIAGNOSTIC_CHECK_IDS]);
    expect(report.checks.map((c) => c.verdict)).toEqual([
      'ok',
      'ok',
      'ok',
      'ok',
      'ok',
      'skipped',
      'ok',
      'ok',
      'ok',
      'ok',
      'ok',
      'ok',
      'ok',
    ]);
    expect(report).toMatchObject({ problems: 0, warnings: 0, checked_at: NOW.toISOString() });
    expect(report.checks[0]!.summary).toBe('running (connected to hk-1)');
    // The domestic name check asks the engine's resolver's own zone, then DE's shipped name.
    expect(d.asked.sort()).toEqual([
      'lookup <label>.ferry-resolver.internal',
      'lookup <label>.whoami.ferry-test',
      'lookup www.tagesschau.de',
      'tcp6 [2001:db8::53]:443',
    ]);
  });

  it('cuts a check off at the bound and reports the rest', async () => {
    const hung = deps({
      mtu: {
        tunnel: { interfaceName: 'fyt0', gateway: '10.64.0.1', mtu: 1420 },
        ping: () => new Promise(() => {}),
      },
    });
    const started = performance.now();
    const report = await runDiagnostics(hung, { timeoutMs: 150 });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(report.checks.find((c) => c.id === 'mtu')).toMatchObject({
      verdict: 'warning',
      summary: 'no result within 0 s',
    });
    expect(report.checks.find((c) => c.id === 'dns-leak')!.verdict).toBe('ok');
    expect(report.warnings).toBe(1);
  });

  it('turns a check that fails into a warning saying why', async () => {
    const broken = deps({
      killSwitch: {
        setting: true,
        lockdown: false,
        stage: 'connected',
        policy: null,
        inspect: async () => {
          throw new FerryError(
            'os-command-failed',
            'nft is not installed (Debian: the nftables package)',
          );
        },
      },
    });
    const report = await runDiagnostics(broken);
    expect(report.checks.find((c) => c.id === 'kill-switch')).toMatchObject({
      verdict: 'warning',
      summary: 'the check could not run (nft is not installed (Debian: the nftables package))',
    });
  });

  it('skips the leak checks when the control plane publishes nothing, and still reports it down', async () => {
    const down = deps({
      control: {
        service: 'https://ferry.example',
        fetch: async () => {
          throw new TypeError('fetch failed');
        },
      },
    });
    const report = await runDiagnostics(down);
    expect(report.checks.find((c) => c.id === 'control-plane')!.verdict).toBe('problem');
    expect(report.checks.find((c) => c.id === 'dns-leak')).toMatchObject({
      verdict: 'skipped',
      summary: 'the control plane names no DNS leak-test zone',
    });
    // Only the domestic name check asks anything: its names need no control plane.
    expect(down.asked.sort()).toEqual([
      'lookup <label>.ferry-resolver.internal',
      'lookup www.tagesschau.de',
    ]);
    expect(report.problems).toBe(1);
  });

  it('stops when the caller aborts', async () => {
    const caller = new AbortController();
    const hung = deps({
      mtu: {
        tunnel: { interfaceName: 'fyt0', gateway: '10.64.0.1', mtu: 1420 },
        ping: () => new Promise(() => {}),
      },
    });
    const run = runDiagnostics(hung, { signal: caller.signal });
    setTimeout(() => caller.abort(new FerryError('cancelled', 'the client went away')), 20);
    await expect(run).rejects.toThrow('the client went away');
  });
});
