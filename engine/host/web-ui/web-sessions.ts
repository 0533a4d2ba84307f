// The web graphical mode's sign-in and sessions. A one-time token (in the sign-in page netcli
// opens, or in the link it prints) is exchanged, once and within a minute, for a session of two
// secrets: a cookie (HttpOnly, so script never holds it) and a page key that the page keeps in its
// own tab and sends as a header. A browser sends the cookie to every port of the host; only the
// page sends the key, so a listener that is handed the cookie still opens nothing. Sessions end
// when left unused, at the latest after a fixed lifetime, or when ended from the app. Every secret
// is a random 256-bit value kept only in this process's memory and compared in constant time.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  BROWSER_SESSION_IDLE_MS,
  BROWSER_SESSION_LIFETIME_MS,
  SIGN_IN_TOKEN_LIFETIME_MS,
} from '../../../contracts/browser-sessions.js';

/** How long a one-time token may wait for its browser. */
export const TOKEN_LIFETIME_MS = SIGN_IN_TOKEN_LIFETIME_MS;
/** Unused this long, a session ends (contracts says why; the app says it in words). */
export const SESSION_IDLE_MS = BROWSER_SESSION_IDLE_MS;
/** And this long after sign-in, whatever its use. */
export const SESSION_LIFETIME_MS = BROWSER_SESSION_LIFETIME_MS;
/** Sessions kept at once; the oldest goes when another browser signs in. */
export const MAX_SESSIONS = 8;
export const SESSION_COOKIE = 'ferry_session';

function secret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface WebSession {
  /** The session's name in the list of sessions: not a secret, it opens nothing. */
  readonly id: string;
  readonly cookie: string;
  readonly pageKey: string;
  readonly created: number;
  lastSeen: number;
  /** Requests under way (an open page's event stream among them). */
  inUse: number;
}

export interface WebSessionsOptions {
  now?: () => number;
  /** Told of each session that ends (ended, expired or pushed out), once. */
  onEnd?: (session: WebSession) => void;
}

export class WebSessions {
  private readonly tokens = new Map<string, number>();
  private readonly sessions: WebSession[] = [];
  private readonly now: () => number;
  private readonly onEnd: (session: WebSession) => void;

  constructor(options: WebSessionsOptions = {}) {
    this.now = options.now ?? Date.now;
    this.onEnd = options.onEnd ?? (() => undefined);
  }

  /** A new one-time token. */
  issueToken(): string {
    this.dropExpiredTokens();
    const token = secret();
    this.tokens.set(token, this.now() + TOKEN_LIFETIME_MS);
    return token;
  }

  /**
   * The new session for a token, which is spent whether or not it was still valid; undefined
   * for an unknown, spent or expired token.
   */
  redeem(token: string): WebSession | undefined {
    this.dropExpiredTokens();
    const match = [...this.tokens.keys()].find((t) => same(t, token));
    if (match === undefined) return undefined;
    this.tokens.delete(match);
    const now = this.now();
    const session: WebSession = {
      id: secret(12),
      cookie: secret(),
      pageKey: secret(),
      created: now,
      lastSeen: now,
      inUse: 0,
    };
    this.sessions.push(session);
    while (this.sessions.length > MAX_SESSIONS) this.finish(this.sessions[0]!);
    return session;
  }

  /** The live session a Cookie header carries (an expired one ends here). */
  byCookie(cookieHeader: string | undefined): WebSession | undefined {
    const value = cookieValue(cookieHeader, SESSION_COOKIE);
    if (value === undefined) return undefined;
    const session = this.sessions.find((s) => same(s.cookie, value));
    if (session === undefined) return undefined;
    if (this.expired(session)) {
      this.finish(session);
      return undefined;
    }
    return session;
  }

  /** Whether `key` is this session's page key. */
  pageKeyMatches(session: WebSession, key: string | undefined): boolean {
    return key !== undefined && same(session.pageKey, key);
  }

  /** The session was used just now. */
  touch(session: WebSession): void {
    session.lastSeen = this.now();
  }

  /** Marks a request of the session under way until the returned release (idle time stops). */
  hold(session: WebSession): () => void {
    session.inUse += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      session.inUse -= 1;
      session.lastSeen = this.now();
    };
  }

  /** The live sessions, oldest first. */
  list(): readonly WebSession[] {
    this.sweep();
    return [...this.sessions];
  }

  /** When a session ends at the latest, whatever its use. */
  expiresAt(session: WebSession): number {
    return session.created + SESSION_LIFETIME_MS;
  }

  /** Ends the session of this id; false when there is none. */
  end(id: string): boolean {
    const session = this.sessions.find((s) => same(s.id, id));
    if (session === undefined) return false;
    this.finish(session);
    return true;
  }

  /** Ends every session that has expired (its connections are cut by onEnd). */
  sweep(): void {
    for (const session of [...this.sessions]) if (this.expired(session)) this.finish(session);
    this.dropExpiredTokens();
  }

  private expired(session: WebSession): boolean {
    const now = this.now();
    if (now >= this.expiresAt(session)) return true;
    return session.inUse === 0 && now - session.lastSeen >= SESSION_IDLE_MS;
  }

  private finish(session: WebSession): void {
    const at = this.sessions.indexOf(session);
    if (at < 0) return;
    this.sessions.splice(at, 1);
    this.onEnd(session);
  }

  private dropExpiredTokens(): void {
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

/**
 * The Set-Cookie of a session: script cannot read it, no other site's page sends it, and the
 * browser forgets it when the session's lifetime is over.
 */
export function sessionCookie(session: WebSession): string {
  const maxAge = Math.floor(SESSION_LIFETIME_MS / 1000);
  return `${SESSION_COOKIE}=${session.cookie}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}`;
}
