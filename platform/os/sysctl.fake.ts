// An in-memory Sysctl for unit tests: settings kept by name (an unset one reads 0, as the
// forwarding and mark settings do on a fresh host), every call journaled, failures on demand.
import { Faults, Journal } from './journal.fake.js';
import type { Sysctl } from './sysctl.js';

export class FakeSysctl extends Faults implements Sysctl {
  readonly values = new Map<string, string>();

  constructor(private readonly journal = new Journal()) {
    super();
  }

  async get(key: string): Promise<string> {
    this.journal.record('sysctl', 'get', [key]);
    this.take('get');
    return this.values.get(key) ?? '0';
  }

  async set(key: string, value: string): Promise<void> {
    this.journal.record('sysctl', 'set', [key, value]);
    this.take('set');
    this.values.set(key, value);
  }
}
