// The engine tests' kit: a real Engine against the control plane in process, with a scripted
// tunnel manager in place of the OS and a state directory of its own per test. The control plane
// comes from the test (server/testing, which only tests may import), with one healthy node in
// asia-east and one in global. One fixture per file: startControlPlane() before all tests,
// start() before each, stop() after each, closeControlPlane() after all.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { FetchLike } from '../../contracts/index.js';
import { FakeDataPlane } from '../../native/tunnel.fake.js';
import { Engine, type EngineDeps } from '../engine.js';
import { createFakeOs, type FakeOs } from '../os/effects.fake.js';
import { FakeTunnelManager } from '../tunnel/manager.fake.js';

/** The control plane's URL as the engine is told it (requests reach it in process). */
export const TEST_SERVICE = 'https://control-plane.test';
/** The address the fixture's lookups give the control plane's host (for the kill switch). */
export const TEST_SERVICE_ADDRESS = '192.0.2.80';

/** What the fixture needs of the control plane's test harness. */
export interface ControlPlaneUnderTest {
  addHealthyNode(region: string, load?: number): Promise<unknown>;
  close(): Promise<void>;
}

/** Engine settings beyond the state dir, transport, tunnels and keys the fixture provides. */
export type EngineOptions = Omit<Partial<EngineDeps>, 'stateDir' | 'fetch' | 'tunnels' | 'os'>;

export interface EngineFixtureOptions<H> {
  /** Names the temp directory (e.g. "ferry-engine-"). */
  prefix: string;
  startControlPlane: () => Promise<H>;
  /** The engine's transport into the control plane. */
  fetchOf: (controlPlane: H) => FetchLike;
  /** Options for every engine made (a restart may add more). */
  engine?: EngineOptions;
}

export class EngineFixture<H extends ControlPlaneUnderTest> {
  #controlPlane: H | null = null;
  #root: string | null = null;
  #tunnels: FakeTunnelManager | null = null;
  #os: FakeOs | null = null;
  #engine: Engine | null = null;

  constructor(private readonly o: EngineFixtureOptions<H>) {}

  /** The control plane, with a healthy node in asia-east (load 0.2) and one in global (0.3). */
  async startControlPlane(): Promise<void> {
    const controlPlane = await this.o.startControlPlane();
    this.#controlPlane = controlPlane;
    await controlPlane.addHealthyNode('asia-east', 0.2);
    await controlPlane.addHealthyNode('global', 0.3);
  }

  async closeControlPlane(): Promise<void> {
    await this.#controlPlane?.close();
    this.#controlPlane = null;
  }

  get controlPlane(): H {
    return started(this.#controlPlane, 'control plane');
  }

  /** The state directory of this test's engines (not created until an engine needs it). */
  get stateDir(): string {
    return path.join(started(this.#root, 'fixture'), 'state');
  }

  get tunnels(): FakeTunnelManager {
    return started(this.#tunnels, 'fixture');
  }

  /**
   * The host's OS as the protections see it (firewall, rules, resolver): kept across restarts
   * and crashes, as the kernel keeps its tables.
   */
  get os(): FakeOs {
    return started(this.#os, 'fixture');
  }

  get engine(): Engine {
    return started(this.#engine, 'fixture');
  }

  /** A new state directory and tunnel manager, and an engine on them, started. */
  async start(): Promise<Engine> {
    this.#root = await mkdtemp(path.join(tmpdir(), this.o.prefix));
    this.#tunnels = new FakeTunnelManager();
    this.#os = createFakeOs();
    return this.startEngine();
  }

  /** Shuts the engine down and removes the state directory. */
  async stop(): Promise<void> {
    await this.#engine?.shutdown();
    this.#engine = null;
    this.#tunnels = null;
    this.#os = null;
    if (this.#root) await rm(this.#root, { recursive: true, force: true });
    this.#root = null;
  }

  /** A restarted host: the engine shut down, a new one on the same state and tunnel manager. */
  async restart(options: EngineOptions = {}): Promise<Engine> {
    await this.engine.shutdown();
    return this.startEngine(options);
  }

  /**
   * A host after a crash: the engine goes without a word to anyone (never shut down), a new one
   * starts on the same state with a new tunnel manager.
   */
  async restartAfterCrash(options: EngineOptions = {}): Promise<Engine> {
    this.#tunnels = new FakeTunnelManager();
    return this.startEngine(options);
  }

  /** The engine told the control plane's URL and signed in as a new account: its number. */
  async signIn(): Promise<string> {
    await this.engine.init({ endpoint: `${TEST_SERVICE}/api/v1` });
    const { account_number } = await this.engine.createAccount({});
    // The relay list fetched on reaching the service: done before a test counts calls.
    await this.engine.backgroundSettled();
    return account_number;
  }

  private async startEngine(options: EngineOptions = {}): Promise<Engine> {
    this.#engine = new Engine({
      ferryKeys: new FakeDataPlane(),
      lookupHost: async (host) => {
        if (host === new URL(TEST_SERVICE).hostname) return [TEST_SERVICE_ADDRESS];
        throw new Error(`no address for ${host} in the fixture`);
      },
      ...this.o.engine,
      ...options,
      stateDir: this.stateDir,
      fetch: this.o.fetchOf(this.controlPlane),
      tunnels: this.tunnels,
      os: this.os,
    });
    await this.#engine.start();
    return this.#engine;
  }
}

function started<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`the engine fixture's ${what} is not started`);
  return value;
}
