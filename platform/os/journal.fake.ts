// What every OS fake shares: one journal of every call in order (the tests read what was done
// and in which order across seams), and one-shot failures injected by operation name.
import { FerryError } from '../../contracts/engine-errors.js';
import { addressFamily } from './arguments.js';

export interface JournalEntry {
  /** The seam the call went through: links, routes, firewall, sysctl, wireguard, resolver... */
  seam: string;
  op: string;
  args: unknown[];
}

/** Every call made through the fakes of one bundle, in order (failed calls included). */
export class Journal {
  readonly entries: JournalEntry[] = [];

  record(seam: string, op: string, args: unknown[]): void {
    this.entries.push({ seam, op, args: structuredClone(args) });
  }

  /** `seam.op` of each call, e.g. ['firewall.apply', 'links.setUp']. */
  ops(): string[] {
    return this.entries.map((e) => `${e.seam}.${e.op}`);
  }
}

/** One-shot failures by operation name, the fakes' common base. */
export class Faults {
  private readonly pending = new Map<string, Error>();

  /** Makes the next call of `op` fail with `error` (default: os-command-failed). */
  failNext(op: string, error?: Error): void {
    this.pending.set(
      op,
      error ?? new FerryError('os-command-failed', `could not ${op}: injected failure`),
    );
  }

  protected take(op: string): void {
    const e = this.pending.get(op);
    if (!e) return;
    this.pending.delete(op);
    throw e;
  }
}

/** The failure a real tool's refusal becomes (FerryError os-command-failed). */
export function refused(what: string, why: string): FerryError {
  return new FerryError('os-command-failed', `could not ${what}: ${why}`);
}

/** A prefix with its length: a bare address is a host prefix. */
export function hostPrefix(prefix: string): string {
  return prefix.includes('/') ? prefix : `${prefix}/${addressFamily(prefix) === 4 ? 32 : 128}`;
}
