// The web graphical mode's sign-in: a one-time token (in the URL netcli gui opens) is exchanged,
// once and within a minute, for a session cookie; the cookie then authenticates every request.
// Both are random 256-bit values kept only in this process's memory, compared in constant time.
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a one-time token may wait for its browser. */
export const TOKEN_LIFETIME_MS = 60_000;
/** Sessions kept at once; the oldest goes when another browser signs in. */
export const MAX_SESSIONS = 8;
export const SESSION_COOKIE = 'ferry_session';

function secret(): string {
  return randomBytes(32).toString('base64url');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class WebSessions {
  private readonly tokens = new Map<string, number>();
  private readonly sessions: string[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** A new one-time token. */
  issueToken(): string {
    this.dropExpired();
    const token = secret();
    this.tokens.set(token, this.now() + TOKEN_LIFETIME_MS);
    return token;
  }

  /**
   * The session for a token, which is spent whether or not it was still valid; undefined for
   * an unknown, spent or expired token.
   */
  redeem(token: string): string | undefined {
    this.dropExpired();
    const match = [...this.tokens.keys()].find((t) => same(t, token));
    if (match === undefined) return undefined;
    this.tokens.delete(match);
    const session = secret();
    this.sessions.push(session);
    while (this.sessions.length > MAX_SESSIONS) this.sessions.shift();
    return session;
  }

  /** Whether a cookie header carries a live session. */
  admits(cookieHeader: string | undefined): boolean {
    const value = cookieValue(cookieHeader, SESSION_COOKIE);
    return value !== undefined && this.sessions.some((s) => same(s, value));
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [token, until] of this.tokens) if (until <= now) this.tokens.delete(token);
  }
}

/** One cookie's value from a Cookie header (the first of that name). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie of a session: script cannot read it, and no other site's page sends it. */
export function sessionCookie(session: string): string {
  return `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/`;
}
