// The client configuration's file (config.json in the state dir): validated on every read,
// replaced atomically on every write, and never silently reset when it is damaged.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import {
  CLIENT_CONFIG_DEFAULTS,
  ClientConfig,
  ClientConfigPatch,
  configFieldErrors,
  CONFIG_KEYS,
  insecureServiceRefusal,
  withServiceTrustReset,
  setConfigValue,
  type ConfigKey,
  type FieldError,
} from '../contracts/index.js';
import { errnoCode, FerryError } from './errors.js';
import { DEFAULT_STATE_DIR, ensureStateDir, writeFileAtomic } from './state-dir.js';
import { SerialQueue } from './serial-queue.js';
import { checkServiceCa } from './service-trust.js';

export const CONFIG_FILE = 'config.json';

export interface ConfigChange {
  config: ClientConfig;
  /** The keys whose value is now different (empty when the change changed nothing). */
  changed: ConfigKey[];
  /** The keys the change named, changed or not (a user who names a key means its value now). */
  given: ConfigKey[];
}

/** What the file holds: nothing yet, or a JSON object that may or may not be a valid config. */
type Stored = { kind: 'absent' } | { kind: 'object'; raw: Record<string, unknown> };

/** Turns V8's "... at position N" into "line L, column C" without quoting the file. */
function whereInJson(text: string, e: unknown): string {
  const m = /position (\d+)/.exec(e instanceof Error ? e.message : '');
  if (!m) return '';
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return ` (line ${line}, column ${column})`;
}

/**
 * The configuration kept in `<stateDir>/config.json` (0600, the directory 0700). A missing
 * file means the defaults (nothing is written until something is set). A file that is not
 * valid JSON, or holds unknown keys or bad values, is reported with `config-corrupt` and left
 * exactly as it is: reads fail until it is fixed, and a `set` may fix a bad key (the other
 * keys are kept) but never writes while anything else in the file is still invalid.
 *
 * Changes through one store run one at a time (read, change, write), so two requests of the
 * local API cannot lose each other's update. One engine host owns a state directory.
 *
 * Every method throws FerryError: config-corrupt, config-unreadable, config-invalid (set and
 * patch: a refused key or value), config-write-failed, state-dir-unusable, state-dir-insecure.
 */
export class ConfigStore {
  readonly file: string;
  readonly #serial = new SerialQueue();

  private readonly writeFile: typeof writeFileAtomic;

  /** `deps.writeFile` replaces the atomic write (tests make it fail). */
  constructor(
    readonly stateDir: string = DEFAULT_STATE_DIR,
    deps: { writeFile?: typeof writeFileAtomic } = {},
  ) {
    this.file = path.join(stateDir, CONFIG_FILE);
    this.writeFile = deps.writeFile ?? writeFileAtomic;
  }

  /** The configuration in effect: the file's, with defaults for keys it does not name. */
  load(): Promise<ClientConfig> {
    return this.#serial.run(async () => this.validate(await this.read()));
  }

  /** Writes a whole configuration (validated first: a bug must not store a bad one). */
  save(config: ClientConfig): Promise<void> {
    return this.#serial.run(async () => {
      const parsed = ClientConfig.safeParse(config);
      if (!parsed.success) {
        const errors = configFieldErrors(parsed.error);
        throw new FerryError('config-invalid', describe('invalid configuration', errors), {
          errors,
        });
      }
      await this.write(parsed.data);
    });
  }

  /** `netcli config set <key> <value>`: the value as typed on a command line. */
  set(key: string, value: string): Promise<ConfigChange> {
    return this.#serial.run(async () => {
      const r = setConfigValue({ ...CLIENT_CONFIG_DEFAULTS }, key, value);
      if (!r.ok) {
        throw new FerryError('config-invalid', r.error.message, { errors: [r.error] });
      }
      return this.change({ [r.key]: r.config[r.key] } as Partial<ClientConfig>);
    });
  }

  /** The local API's PATCH: typed JSON values, all applied or none. */
  patch(patch: unknown): Promise<ConfigChange> {
    return this.#serial.run(async () => {
      const parsed = ClientConfigPatch.safeParse(patch);
      if (!parsed.success) {
        const errors = configFieldErrors(parsed.error);
        throw new FerryError('config-invalid', describe('invalid settings', errors), { errors });
      }
      return this.change(parsed.data);
    });
  }

  /** Applies already-validated values to what the file holds and writes the result. */
  private async change(values: Partial<ClientConfig>): Promise<ConfigChange> {
    const stored = await this.read();
    const raw = stored.kind === 'object' ? stored.raw : {};
    const before = ClientConfig.safeParse(raw);
    const given = CONFIG_KEYS.filter((k) => k in values);
    values = withServiceTrustReset(before.success ? before.data : { service: null }, values);
    const config = this.validate({ kind: 'object', raw: { ...raw, ...values } });
    const unsafe = insecureServiceRefusal(config);
    if (unsafe) throw new FerryError('config-invalid', unsafe.message, { errors: [unsafe] });
    if (values.service_ca) checkServiceCa(values.service_ca);
    // A file that was invalid and is now fixed counts the keys given as changed.
    const changed = CONFIG_KEYS.filter((k) =>
      before.success ? before.data[k] !== config[k] : k in values,
    );
    if (changed.length > 0 || stored.kind === 'absent' || !before.success) await this.write(config);
    return { config, changed, given };
  }

  private validate(stored: Stored): ClientConfig {
    if (stored.kind === 'absent') return { ...CLIENT_CONFIG_DEFAULTS };
    const parsed = ClientConfig.safeParse(stored.raw);
    if (parsed.success) return parsed.data;
    const errors = configFieldErrors(parsed.error);
    throw new FerryError(
      'config-corrupt',
      `${describe(`the configuration file ${this.file} has invalid settings`, errors)}; ` +
        'fix them with netcli config set, or edit the file (it was left as it is)',
      { errors },
    );
  }

  private async read(): Promise<Stored> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return { kind: 'absent' };
      throw new FerryError(
        'config-unreadable',
        `cannot read the configuration file ${this.file} (${errnoCode(e) ?? 'error'})`,
        { cause: e },
      );
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      // The parser's message quotes the file; only the position is passed on.
      throw new FerryError(
        'config-corrupt',
        `the configuration file ${this.file} is not valid JSON${whereInJson(text, e)}; ` +
          'fix it or move it aside (it was left as it is)',
      );
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new FerryError(
        'config-corrupt',
        `the configuration file ${this.file} does not hold a JSON object; ` +
          'fix it or move it aside (it was left as it is)',
      );
    }
    return { kind: 'object', raw: raw as Record<string, unknown> };
  }

  private async write(config: ClientConfig): Promise<void> {
    await ensureStateDir(this.stateDir);
    try {
      await this.writeFile(this.file, `${JSON.stringify(config, null, 2)}\n`, 0o600);
    } catch (e) {
      throw new FerryError(
        'config-write-failed',
        `cannot save the configuration in ${this.stateDir} (${errnoCode(e) ?? 'error'}); ` +
          'the previous configuration is unchanged',
        { cause: e },
      );
    }
  }
}

function describe(what: string, errors: FieldError[]): string {
  return `${what}: ${errors.map((e) => e.message).join('; ')}`;
}
