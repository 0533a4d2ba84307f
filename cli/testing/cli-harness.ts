// The cli tests' kit: netcli's commands run in process against the in-memory engine through the
// real engine host on a temp socket, each run's stdout, stderr and exit code kept. One harness
// per describe; start() before each test, close() after it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { FakeEngine } from '../../engine/engine.fake.js';
import { startLocalApiServer, type LocalApiServer } from '../../engine/host/local-api-server.js';
import { createWebUi, type WebUi } from '../../engine/host/web-ui/web-ui-server.js';
import { runNetcli, type FakeIo, type NetcliRun } from '../io.fake.js';

export const TEST_SERVICE = 'https://ferry.example/api/v1';

export class CliHarness {
  #dir: string | null = null;
  #engine: FakeEngine | null = null;
  #server: LocalApiServer | null = null;
  #web: WebUi | null = null;

  /**
   * `prefix` names the temp directory (e.g. "ferry-cli-"); with `gui`, the host also serves the
   * web graphical mode (netcli gui) from a one-page renderer in that directory.
   */
  constructor(
    private readonly prefix: string,
    private readonly options: { gui?: boolean } = {},
  ) {}

  /** A temp directory, a new fake engine, and the host serving it on `socketPath`. */
  async start(): Promise<void> {
    this.#dir = await mkdtemp(path.join(tmpdir(), this.prefix));
    this.#engine = new FakeEngine();
    if (this.options.gui) {
      await mkdir(this.rendererDir);
      await writeFile(
        path.join(this.rendererDir, 'index.html'),
        '<!doctype html><title>Ferry</title>',
      );
    }
    await this.startHost();
  }

  /** start(), then setUp(): an engine with a service and a signed-in device. */
  async startSignedIn(): Promise<void> {
    await this.start();
    await this.setUp();
  }

  /** Stops the host (netcli then finds no engine) and removes the temp directory. */
  async close(): Promise<void> {
    await this.stopHost();
    if (this.#dir) await rm(this.#dir, { recursive: true, force: true });
    this.#dir = null;
    this.#engine = null;
  }

  /** The temp directory of this test. */
  get dir(): string {
    if (!this.#dir) throw new Error('the cli harness is not started');
    return this.#dir;
  }

  /** The renderer the web graphical mode serves (with `gui`). */
  get rendererDir(): string {
    return path.join(this.dir, 'renderer');
  }

  get socketPath(): string {
    return path.join(this.dir, 'engine.sock');
  }

  get engine(): FakeEngine {
    if (!this.#engine) throw new Error('the cli harness is not started');
    return this.#engine;
  }

  /** Serves the same engine on the same socket again (after stopHost). */
  async startHost(): Promise<void> {
    if (this.options.gui)
      this.#web ??= createWebUi({ engine: this.engine, rendererDir: this.rendererDir });
    this.#server ??= await startLocalApiServer({
      engine: this.engine,
      socketPath: this.socketPath,
      group: null,
      ...(this.#web ? { gui: this.#web } : {}),
    });
  }

  /** Stops serving; the engine stays. Idempotent. */
  async stopHost(): Promise<void> {
    const server = this.#server;
    const web = this.#web;
    this.#server = null;
    this.#web = null;
    await web?.close();
    await server?.close();
  }

  /** Runs netcli with these arguments (and --socket); `io` gives a prepared fake. */
  readonly run = (args: readonly string[], io?: FakeIo): Promise<NetcliRun> =>
    runNetcli(this.socketPath, args, io);

  readonly netcli = (...args: string[]): Promise<NetcliRun> => this.run(args);

  /** Runs netcli and throws unless it exits 0. */
  readonly ok = async (...args: string[]): Promise<NetcliRun> => {
    const r = await this.run(args);
    if (r.code !== 0) throw new Error(`netcli ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r;
  };

  /** Runs netcli with --json and reads what it printed. */
  readonly json = async (...args: string[]): Promise<any> =>
    JSON.parse((await this.ok(...args, '--json')).stdout);

  /** netcli init (WireGuard, TEST_SERVICE), then account create: the account it made. */
  readonly setUp = async (): Promise<any> => {
    await this.ok('init', '--protocol', 'wireguard', '--endpoint', TEST_SERVICE);
    return this.json('account', 'create');
  };
}
