// Device tokens resolved from memory for a few seconds (one process only); a revocation or plan
// change drops them at once. Also remembers revocations for connects in flight.
import type { BusEvent, EventBus } from './event-bus.js';
import type { DeviceAuth } from './ports/devices.js';
import { monotonicMs, type Ticks } from './snapshot.js';

/** Where a token hash is resolved for real (the devices table). */
export interface DeviceAuthSource {
  authByTokenHash(tokenHash: string): Promise<DeviceAuth | undefined>;
}

/** Asked by connect after it wrote a live session: was the device revoked meanwhile? */
export interface Revocations {
  wasRevoked(deviceId: string): boolean;
}

/** What writers on this instance tell the cache; other instances' writes arrive over the bus. */
export interface AuthInvalidation {
  forgetDevice(deviceId: string): void;
  forgetAccount(accountId: number): void;
}

/**
 * Revoked device ids are remembered this long: far longer than a request in flight that
 * authenticated before the revocation (ids are never reused, so keeping one is always right).
 */
const REVOKED_KEEP_MS = 60_000;
const REVOKED_MAX = 10_000;

export interface DeviceAuthCacheOptions {
  /**
   * The longest an entry is served. Invalidation does not depend on it (writers and events do
   * that); it bounds the harm of a change made behind the service's back (by hand in SQL).
   */
  ttlMs: number;
  /** Entries kept at most; the oldest go first. */
  maxEntries: number;
  now?: Ticks;
}

/**
 * Contract (fails closed): once `forgetDevice`/`forgetAccount` returns, or a `revoked` device
 * event or `plan` account event reaches this instance, no lookup answers from data read before
 * it. Only found devices are kept (an unknown token always asks the source).
 *
 * Entries are kept only when the bus is instant (one process, SQLite). With several instances
 * (PostgreSQL) a revocation made on one reaches the others a little after the revoking
 * request has been answered, and a request sent at once to another instance must already
 * fail: there every lookup asks the shared database.
 */
export class DeviceAuthCache implements DeviceAuthSource, Revocations, AuthInvalidation {
  private readonly entries = new Map<string, { auth: DeviceAuth; expiresAt: number }>();
  /** Device id → until when it is remembered as revoked. */
  private readonly revoked = new Map<string, number>();
  /** Bumped by every invalidation: a lookup that began before one does not store its answer. */
  private generation = 0;
  private readonly keep: boolean;
  private readonly now: Ticks;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly source: DeviceAuthSource,
    bus: EventBus,
    private readonly opts: DeviceAuthCacheOptions,
  ) {
    this.now = opts.now ?? monotonicMs;
    this.keep = bus.instant;
    this.unsubscribe = bus.subscribe((e) => this.onEvent(e));
  }

  async authByTokenHash(tokenHash: string): Promise<DeviceAuth | undefined> {
    const startedAt = this.now();
    const hit = this.entries.get(tokenHash);
    if (hit) {
      if (startedAt < hit.expiresAt) return hit.auth;
      this.entries.delete(tokenHash);
    }
    const generation = this.generation;
    const auth = await this.source.authByTokenHash(tokenHash);
    if (auth === undefined) return undefined;
    if (!this.keep || generation !== this.generation) return auth;
    // Callers share the entry: frozen so that none can change what another sees. A session
    // read with the token is for that one request, never for later ones.
    const { sessionAtAuth: _once, ...kept } = auth;
    const entry = Object.freeze(kept);
    if (this.entries.size >= this.opts.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(tokenHash, { auth: entry, expiresAt: startedAt + this.opts.ttlMs });
    return auth;
  }

  /** The device was revoked (here or on another instance). */
  forgetDevice(deviceId: string): void {
    this.generation++;
    this.rememberRevoked(deviceId);
    for (const [key, e] of this.entries) if (e.auth.deviceId === deviceId) this.entries.delete(key);
  }

  /** The account's plan changed (here or on another instance). */
  forgetAccount(accountId: number): void {
    this.generation++;
    for (const [key, e] of this.entries)
      if (e.auth.accountId === accountId) this.entries.delete(key);
  }

  /** Revoked as heard on this instance: here at once, from other instances over the bus. */
  wasRevoked(deviceId: string): boolean {
    const until = this.revoked.get(deviceId);
    return until !== undefined && this.now() < until;
  }

  get size(): number {
    return this.entries.size;
  }

  close(): void {
    this.unsubscribe();
    this.forgetAll();
  }

  private rememberRevoked(deviceId: string): void {
    const now = this.now();
    // Oldest first in insertion order: drop the expired, and the oldest beyond the bound.
    for (const [id, until] of this.revoked) {
      if (until > now && this.revoked.size < REVOKED_MAX) break;
      this.revoked.delete(id);
    }
    this.revoked.delete(deviceId);
    this.revoked.set(deviceId, now + REVOKED_KEEP_MS);
  }

  private forgetAll(): void {
    this.generation++;
    this.entries.clear();
  }

  private onEvent(e: BusEvent): void {
    if (e.kind === 'device' && e.change === 'revoked') this.forgetDevice(e.deviceId);
    else if (e.kind === 'account' && e.change === 'plan') this.forgetAccount(e.accountId);
  }
}
