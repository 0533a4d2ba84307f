// The engine's tunnel manager for real, inside a client's network namespace, against a real relay:
// a WireGuard and a Ferry (UDP and TCP) full tunnel move the client's exit address to the relay's
// and back on close, a service tunnel carries only its destinations, a node that does not answer
// fails within the timeout, and whatever a tunnel ends with (close, failure, SIGKILL followed by
// cleanupLeftovers) no link, rule, route, socket or process of it stays.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ConnectResponse } from '../../contracts/index.js';
import {
  FERRY_ROUTE_TABLE,
  SUPPRESS_RULE_PRIORITY,
  TUNNEL_RULE_PRIORITY,
  tunnelInterfaceName,
} from '../../engine/tunnel/names.js';
import type { TunnelPlan } from '../../engine/tunnel/tunnel.js';
import { UAPI_DIR } from '../../platform/os/wireguard-go.js';
import type { DriverLine, DriverOptions } from './engine-tunnel-driver.js';
import { sh, type ManagedProcess } from './test-network.js';
import { Testbed, type Device } from './testbed.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DRIVER = path.join(HERE, 'engine-tunnel-driver.ts');

/**
 * Node 20 runs no TypeScript by itself: the driver is loaded through module hooks (a data: URL,
 * nothing written) that transpile each .ts file with the repository's own typescript package,
 * so the namespace runs the sources under test rather than a build that may be stale.
 */
function typescriptLoaderArgs(): string[] {
  const tsUrl = pathToFileURL(createRequire(import.meta.url).resolve('typescript')).href;
  const hooks = `
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ts from ${JSON.stringify(tsUrl)};
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (e) {
    if (e?.code === 'ERR_MODULE_NOT_FOUND' && /^(\\.|\\/|file:)/.test(specifier) && specifier.endsWith('.js'))
      return next(specifier.slice(0, -3) + '.ts', context);
    throw e;
  }
}
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const fileName = fileURLToPath(url);
  const out = ts.transpileModule(await readFile(fileName, 'utf8'), {
    fileName,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      inlineSourceMap: true,
    },
  });
  return { format: 'module', source: out.outputText, shortCircuit: true };
}`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(
    `data:text/javascript,${encodeURIComponent(hooks)}`,
  )});`;
  return ['--import', `data:text/javascript,${encodeURIComponent(register)}`];
}

const LOADER = typescriptLoaderArgs();
/** Short enough for the failure case, long enough for a relay that learns the peer late. */
const UNANSWERED_TIMEOUT_MS = 3_000;

function cmdline(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return `${pid} (ended)`;
  }
}

class Driver {
  constructor(readonly proc: ManagedProcess) {}

  lines(): DriverLine[] {
    return this.proc
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as DriverLine);
  }

  async next<T extends DriverLine>(
    bed: Testbed,
    what: string,
    pick: (l: DriverLine) => l is T,
    timeoutMs = 20_000,
  ): Promise<T> {
    try {
      return await bed.net.waitFor(what, timeoutMs, () => this.lines().find(pick));
    } catch (e) {
      throw new Error(
        `${(e as Error).message}\ndriver output:\n${this.proc.output().slice(-3000)}`,
      );
    }
  }

  async up(bed: Testbed): Promise<{ latencyMs: number; elapsedMs: number }> {
    const l = await this.next(
      bed,
      'the tunnel to come up',
      (x): x is Extract<DriverLine, { event: 'up' | 'error' }> =>
        x.event === 'up' || x.event === 'error',
    );
    if (l.event === 'error')
      throw new Error(`up() failed: ${l.code}: ${l.message}\n${bed.diagnostics()}`);
    return l;
  }
}

describe('the engine’s tunnel manager in a namespace', () => {
  let bed: Testbed;
  let relayAddress: string;
  let n = 0;

  beforeAll(async () => {
    bed = await Testbed.start();
    relayAddress = (await bed.addRelay('tokyo', 'asia-east', { ferry: true })).address;
  }, 120_000);
  /** Interface names given out, so that afterAll can remove sockets a failed test left. */
  const names: string[] = [];
  afterAll(async () => {
    await bed?.stop();
    for (const name of names) rmSync(`/run/wireguard/${name}.sock`, { force: true });
  }, 60_000);

  const newDevice = async (): Promise<Device> =>
    bed.newDevice(await bed.newAccount(), `engine-tunnel-${n}`);

  async function planFor(
    device: Device,
    protocol: ConnectResponse['protocol'],
    over: Partial<TunnelPlan> = {},
  ): Promise<TunnelPlan> {
    const answer = await bed.control(device.token).connect({
      body: { protocol, region: 'asia-east' },
    });
    return {
      answer,
      privateKey: protocol === 'ferry' ? device.ferryPrivateKey : device.privateKey,
      routes: { kind: 'all' },
      interfaceName: names[names.push(tunnelInterfaceName('e2e')) - 1]!,
      ...over,
    };
  }

  function driver(host: string, command: 'up' | 'cleanup', options?: DriverOptions): Driver {
    const argv = [process.execPath, ...LOADER, DRIVER, command];
    if (options) {
      const file = path.join(bed.net.dir, `driver-${n++}.json`);
      writeFileSync(file, JSON.stringify(options), { mode: 0o600 });
      argv.push(file);
    }
    return new Driver(bed.net.spawn(host, `engine-tunnel-${command}-${n++}`, argv));
  }

  async function cleanup(host: string): Promise<void> {
    const d = driver(host, 'cleanup');
    expect(await d.proc.exited, d.proc.output()).toBe(0);
    expect(d.lines()).toEqual([{ event: 'cleaned' }]);
  }

  /** Every trace of the engine's tunnels in a host, as `ip`, /run/wireguard and /proc show them. */
  function traces(host: string): string[] {
    const ex = (...argv: string[]) => bed.net.exec(host, argv);
    const found: string[] = [];
    for (const l of JSON.parse(ex('ip', '-j', 'link')) as { ifname: string }[])
      if (l.ifname.startsWith('fyt')) found.push(`link ${l.ifname}`);
    for (const line of ex('ip', '-4', 'rule').split('\n'))
      if (
        line.startsWith(`${SUPPRESS_RULE_PRIORITY}:`) ||
        line.startsWith(`${TUNNEL_RULE_PRIORITY}:`) ||
        line.includes(`lookup ${FERRY_ROUTE_TABLE}`)
      )
        found.push(`rule ${line.trim()}`);
    for (const family of ['-4', '-6'])
      for (const line of ex('ip', family, 'route', 'show', 'table', 'all').split('\n'))
        if (line.includes('fyt') || line.includes(`table ${FERRY_ROUTE_TABLE}`))
          found.push(`route ${line.trim()}`);
    for (const f of readdirSync(UAPI_DIR, { withFileTypes: true }).map((d) => d.name))
      if (f.startsWith('fyte2e')) found.push(`socket ${f}`);
    // From outside: a tool run inside the namespace would count itself.
    for (const pid of sh('ip', ['netns', 'pids', bed.net.host(host).ns])
      .split(/\s+/)
      .filter(Boolean))
      found.push(`process ${cmdline(pid)}`);
    return found;
  }

  const exitOf = async (host: string, expected: string) =>
    bed.net.waitFor(`${host} to exit through ${expected}`, 10_000, () => {
      const seen = bed.echoFrom(host, 2);
      return seen === expected ? seen : undefined;
    });

  it.each([
    ['WireGuard', 'wireguard', undefined],
    ['Ferry over UDP', 'ferry', 'udp'],
    ['Ferry over TCP', 'ferry', 'tcp'],
  ] as const)(
    'a %s full tunnel moves the exit to the relay, and its close moves it back, leaving nothing',
    async (_label, protocol, transport) => {
      const host = `et${n++}`;
      const own = bed.net.addAccessHost(host).address;
      expect(bed.echoFrom(host)).toBe(own);
      const plan = await planFor(await newDevice(), protocol, transport ? { transport } : {});
      const d = driver(host, 'up', { plan, timing: { probeIntervalMs: 500 } });
      const up = await d.up(bed);
      expect(up.latencyMs).toBeGreaterThan(0);

      expect(bed.echoFrom(host)).toBe(relayAddress);
      const rules = bed.net.exec(host, ['ip', '-4', 'rule']);
      // Main's specific routes count for the LAN ranges only (not for every destination).
      expect(rules).toMatch(
        new RegExp(
          `^${SUPPRESS_RULE_PRIORITY}:\\s+from all to 192\\.168\\.0\\.0/16 lookup main suppress_prefixlength 0`,
          'm',
        ),
      );
      expect(rules).not.toMatch(
        new RegExp(`^${SUPPRESS_RULE_PRIORITY}:\\s+from all lookup main`, 'm'),
      );
      expect(rules).toMatch(
        new RegExp(
          `^${TUNNEL_RULE_PRIORITY}:\\s+not from all fwmark 0x${FERRY_ROUTE_TABLE.toString(16)} lookup ${FERRY_ROUTE_TABLE}`,
          'm',
        ),
      );
      expect(
        bed.net.exec(host, ['ip', '-4', 'route', 'show', 'table', String(FERRY_ROUTE_TABLE)]),
      ).toContain(`default dev ${plan.interfaceName}`);
      if (protocol === 'wireguard') {
        // Latency afterwards comes from the probe through the tunnel.
        await d.next(
          bed,
          'a latency event',
          (l): l is DriverLine => l.event === 'tunnel' && l.type === 'latency',
        );
      }

      expect(await d.proc.stop()).toBe(0);
      expect(d.lines().at(-1)).toEqual({ event: 'closed' });
      expect(bed.echoFrom(host)).toBe(own);
      expect(traces(host)).toEqual([]);
    },
    90_000,
  );

  it('a service tunnel carries only its destinations', async () => {
    const host = `et${n++}`;
    const own = bed.net.addAccessHost(host).address;
    const plan = await planFor(await newDevice(), 'ferry', {
      routes: { kind: 'only', cidrs: [bed.net.serverSubnet] },
    });
    const d = driver(host, 'up', { plan });
    await d.up(bed);
    // The echo service's subnet goes through the relay; the control plane's (the access
    // subnet) stays direct, and there is no policy rule.
    expect(bed.echoFrom(host)).toBe(relayAddress);
    expect(bed.echoFrom(host, 3, `${bed.controlUrl}/v1/health`)).toBeDefined();
    expect(bed.net.exec(host, ['ip', '-4', 'route', 'show', bed.net.serverSubnet])).toContain(
      `dev ${plan.interfaceName}`,
    );
    expect(bed.net.exec(host, ['ip', '-4', 'route', 'show', 'default'])).toContain('dev eth0');
    expect(bed.net.exec(host, ['ip', '-4', 'rule'])).not.toContain(`${TUNNEL_RULE_PRIORITY}:`);
    expect(await d.proc.stop()).toBe(0);
    expect(bed.echoFrom(host)).toBe(own);
    expect(traces(host)).toEqual([]);
  }, 60_000);

  it.each(['wireguard', 'ferry'] as const)(
    'a %s tunnel to a node that does not answer fails as node-unreachable within the timeout, leaving nothing',
    async (protocol) => {
      const host = `et${n++}`;
      const own = bed.net.addAccessHost(host).address;
      const plan = await planFor(await newDevice(), protocol);
      // An address on the client's subnet that nobody holds: every packet to it is lost.
      plan.answer.node.endpoint_host = `198.18.${bed.net.n}.250`;
      const d = driver(host, 'up', { plan, timing: { upTimeoutMs: UNANSWERED_TIMEOUT_MS } });
      const failed = await d.next(
        bed,
        'up() to fail',
        (l): l is Extract<DriverLine, { event: 'error' }> => l.event === 'error',
      );
      expect(failed.code).toBe('node-unreachable');
      expect(failed.elapsedMs).toBeGreaterThanOrEqual(UNANSWERED_TIMEOUT_MS - 100);
      // The timeout plus at most one probe in flight and the teardown.
      expect(failed.elapsedMs).toBeLessThan(UNANSWERED_TIMEOUT_MS + 3_000);
      expect(failed.message).not.toContain('198.18.');
      expect(await d.proc.exited).toBe(1);
      expect(bed.echoFrom(host)).toBe(own);
      expect(traces(host)).toEqual([]);
    },
    60_000,
  );

  it('cleanupLeftovers removes what tunnels killed with SIGKILL left behind', async () => {
    const host = `et${n++}`;
    const own = bed.net.addAccessHost(host).address;
    const full = driver(host, 'up', { plan: await planFor(await newDevice(), 'wireguard') });
    await full.up(bed);
    const service = driver(host, 'up', {
      plan: await planFor(await newDevice(), 'ferry', {
        routes: { kind: 'only', cidrs: [bed.net.vpcSubnet] },
      }),
    });
    await service.up(bed);
    expect(bed.echoFrom(host)).toBe(relayAddress);

    for (const d of [full, service]) {
      d.proc.child.kill('SIGKILL');
      await d.proc.exited;
    }
    // wireguard-go outlives its parent: the full tunnel still carries traffic, rules and all.
    const left = traces(host);
    expect(left.some((t) => t.startsWith('process wireguard-go'))).toBe(true);
    expect(left.some((t) => t.startsWith('rule'))).toBe(true);
    expect(left.some((t) => t.startsWith('socket'))).toBe(true);
    await exitOf(host, relayAddress);

    await cleanup(host);
    expect(traces(host)).toEqual([]);
    expect(bed.echoFrom(host)).toBe(own);
    // Nothing left to do the second time.
    await cleanup(host);
  }, 90_000);

  it('a WireGuard tunnel reports the node lost while its relay is down, and restored after', async () => {
    const host = `et${n++}`;
    bed.net.addAccessHost(host);
    const d = driver(host, 'up', {
      plan: await planFor(await newDevice(), 'wireguard'),
      timing: { probeIntervalMs: 500 },
    });
    await d.up(bed);
    await bed.relays.get('tokyo')!.process.stop();
    await d.next(
      bed,
      'the loss',
      (l): l is DriverLine => l.event === 'tunnel' && l.type === 'lost',
      15_000,
    );
    await bed.startRelay('tokyo');
    await d.next(
      bed,
      'the recovery',
      (l): l is DriverLine => l.event === 'tunnel' && l.type === 'restored',
      40_000,
    );
    expect(bed.echoFrom(host)).toBe(relayAddress);
    expect(await d.proc.stop()).toBe(0);
    expect(traces(host)).toEqual([]);
  }, 120_000);
});
