// Per-IP and per-account rate limits (429 + Retry-After). Addresses are keyed by a keyed hash
// so that not even process memory holds a client's IP.
import { createHmac, randomBytes } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimitOptions {
  /** Requests per minute from one address, all routes together. */
  perIpPerMinute: number;
  /** Account creations and sign-ins per minute from one address. */
  signupPerIpPerMinute: number;
  /** Requests per minute by the devices of one account. */
  perAccountPerMinute: number;
}

export const DEFAULT_RATE_LIMITS: RateLimitOptions = {
  perIpPerMinute: 1200,
  signupPerIpPerMinute: 20,
  perAccountPerMinute: 600,
};

export type LimitKind = 'ip' | 'signup' | 'account';

export class RateLimits {
  private readonly secret = randomBytes(32);
  private readonly limiters: Record<LimitKind, RateLimiterMemory>;

  constructor(opts: RateLimitOptions) {
    this.limiters = {
      ip: new RateLimiterMemory({ points: opts.perIpPerMinute, duration: 60 }),
      signup: new RateLimiterMemory({ points: opts.signupPerIpPerMinute, duration: 60 }),
      account: new RateLimiterMemory({ points: opts.perAccountPerMinute, duration: 60 }),
    };
  }

  addressKey(ip: string): string {
    return createHmac('sha256', this.secret).update(ip).digest('base64url').slice(0, 22);
  }

  /** Resolves to undefined when allowed, or to the seconds to wait. */
  async take(kind: LimitKind, key: string): Promise<number | undefined> {
    try {
      await this.limiters[kind].consume(key);
      return undefined;
    } catch (e) {
      if (e instanceof RateLimiterRes) return Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      throw e;
    }
  }
}
