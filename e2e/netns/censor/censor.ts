// The censor of the test internet (issue 20): on the router, between the home network
// (TestNetwork.homeSubnet, or the prefixes given) and everything else ("foreign"), it applies the
// named profiles of profiles.ts, alone or together. nftables says what a rule can say; an
// inspector process (inspector-main.ts, with the NFQUEUE shim) decides the rest. Tests read what
// it did from events(); stop() removes its table, its queue rule and its process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { REPO } from '../ferry-process.js';
import { requireTools, sh, type TestNetwork } from '../test-network.js';
import type { CensorEvent } from './inspector.js';
import { buildShim } from './nfq-shim-build.js';
import { CENSOR_TABLE, censorRuleset, queueRule } from './nft-ruleset.js';
import { INSPECTED, settings, type CensorOptions, type Settings } from './profiles.js';

export type { CensorEvent } from './inspector.js';
export type { CensorOptions, Profile } from './profiles.js';
export { PROFILES } from './profiles.js';

/** The queue number in the router's namespace (each network has its own router). */
const QUEUE = 7;
const INSPECTOR = path.join(REPO, 'dist/e2e/netns/censor/inspector-main.js');
const SHIM_SOURCE = path.join(REPO, 'e2e/netns/censor/nfq-shim.c');

export class Censor {
  private readonly seen: CensorEvent[] = [];
  private inspector: ChildProcess | undefined;
  private output = '';
  private queued = false;

  private constructor(
    readonly net: TestNetwork,
    readonly settings: Settings,
  ) {}

  /** Puts the censor on the network's router, with its inspector running when one is needed. */
  static async start(net: TestNetwork, options: CensorOptions): Promise<Censor> {
    requireTools(['nft', 'iptables', 'gcc']);
    const censor = new Censor(net, settings(options, net.homeSubnet, QUEUE));
    try {
      await censor.install();
    } catch (e) {
      await censor.stop();
      throw e;
    }
    return censor;
  }

  private router(argv: readonly string[], input?: string): string {
    return sh('ip', ['netns', 'exec', this.net.inet, ...argv], input);
  }

  /** A command in the router's namespace whose failure is fine (removing what may not be there). */
  private routerTry(argv: readonly string[]): void {
    spawnSync('ip', ['netns', 'exec', this.net.inet, ...argv]);
  }

  private async install(): Promise<void> {
    // Byte and packet counts per connection: tcp-budget and the queue's limit read them.
    this.router(['sysctl', '-qw', 'net.netfilter.nf_conntrack_acct=1']);
    const inspected = this.settings.profiles.some((p) => INSPECTED.includes(p));
    if (inspected) await this.startInspector();
    this.routerTry(['nft', 'delete', 'table', 'inet', CENSOR_TABLE]);
    this.router(['nft', '-f', '-'], censorRuleset(this.settings, inspected));
    if (inspected) {
      this.router(['iptables', '-t', 'mangle', '-A', ...queueRule(QUEUE)]);
      this.queued = true;
    }
  }

  private async startInspector(): Promise<void> {
    if (!existsSync(INSPECTOR)) throw new Error(`${INSPECTOR} missing: run npm run build`);
    const shim = buildShim(SHIM_SOURCE);
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        this.net.inet,
        process.execPath,
        INSPECTOR,
        shim,
        JSON.stringify(this.settings),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    this.inspector = child;
    let line = '';
    child.stdout!.on('data', (d: Buffer) => {
      line += d.toString();
      let nl;
      while ((nl = line.indexOf('\n')) >= 0) {
        const text = line.slice(0, nl);
        line = line.slice(nl + 1);
        try {
          this.seen.push(JSON.parse(text) as CensorEvent);
        } catch {
          this.output += `${text}\n`;
        }
      }
    });
    child.stderr!.on('data', (d: Buffer) => {
      this.output = (this.output + d.toString()).slice(-50_000);
    });
    await this.net.waitFor('the censor inspector', 10_000, () => {
      if (child.exitCode !== null) throw new Error(`inspector exited: ${this.output}`);
      return this.seen.some((e) => (e.kind as string) === 'ready') ? true : undefined;
    });
  }

  /** What the censor did so far, in order. */
  events(): CensorEvent[] {
    return this.seen.filter((e) => (e.kind as string) !== 'ready');
  }

  /** The first event matching `pred`, waiting up to `timeoutMs` for it. */
  waitEvent<K extends CensorEvent['kind']>(
    kind: K,
    pred: (e: Extract<CensorEvent, { kind: K }>) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<Extract<CensorEvent, { kind: K }>> {
    return this.net.waitFor(`censor event ${kind}${this.diagnostics()}`, timeoutMs, () =>
      this.seen.find(
        (e): e is Extract<CensorEvent, { kind: K }> =>
          e.kind === kind && pred(e as Extract<CensorEvent, { kind: K }>),
      ),
    );
  }

  /** The endpoints (`address . port`) the prober has blocked for good. */
  probeBlocked(): string[] {
    const out = this.router(['nft', '-j', 'list', 'set', 'inet', CENSOR_TABLE, 'probe_block']);
    const set = (
      JSON.parse(out) as { nftables: { set?: { elem?: { concat: unknown[] }[] } }[] }
    ).nftables.find((x) => x.set)?.set;
    return (set?.elem ?? []).map((e) => e.concat.join(' . '));
  }

  /** The inspector's errors and stderr, for a failing test's message. */
  diagnostics(): string {
    const errors = this.seen.filter((e) => e.kind === 'error');
    return errors.length || this.output
      ? `\ncensor: ${JSON.stringify(errors)} ${this.output.slice(-2000)}`
      : '';
  }

  /** Removes the queue rule, the table and the inspector (with its shim). */
  async stop(): Promise<void> {
    if (this.queued) this.routerTry(['iptables', '-t', 'mangle', '-D', ...queueRule(QUEUE)]);
    this.queued = false;
    this.routerTry(['nft', 'delete', 'table', 'inet', CENSOR_TABLE]);
    const child = this.inspector;
    this.inspector = undefined;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin!.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(killer);
    }
  }
}
