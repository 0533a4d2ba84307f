// Who the web graphical mode serves: a request must name the listener's own Host (a DNS
// rebinding page names its own), come from its own Origin when it carries one and always when it
// changes something (CSRF), never from another site (Sec-Fetch-Site), and carry the session
// cookie (except the one-time sign-in path). Fails closed: anything unexpected is refused.
import type { IncomingHttpHeaders } from 'node:http';
import { HostProblem } from '../problems.js';
import type { WebSessions } from './web-sessions.js';

/** The path a one-time token is redeemed at: /session/TOKEN. */
export const SESSION_PATH = '/session/';
/** The sign-in path exactly: one segment of token, nothing after it. */
const SIGN_IN = /^\/session\/[A-Za-z0-9_-]{1,64}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD']);
const SAME_SITE = new Set(['same-origin', 'none']);

export interface WebRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export class WebGuard {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  constructor(
    port: number,
    private readonly sessions: WebSessions,
  ) {
    this.hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
    this.origins = new Set([...this.hosts].map((h) => `http://${h}`));
  }

  /** Throws `forbidden` (a foreign Host, Origin or site) or `unauthorized` (no session). */
  check({ method, url, headers }: WebRequest): void {
    const host = headers.host?.trim().toLowerCase();
    if (host === undefined || !this.hosts.has(host))
      throw new HostProblem('forbidden', 'this address serves Ferry on 127.0.0.1 only');
    const origin = headers.origin;
    if (origin !== undefined && !this.origins.has(origin.toLowerCase()))
      throw new HostProblem('forbidden', 'requests from other web pages are refused');
    if (!SAFE_METHODS.has(method.toUpperCase()) && origin === undefined)
      throw new HostProblem('forbidden', 'a change must come from the Ferry page itself');
    const site = headers['sec-fetch-site'];
    if (typeof site === 'string' && !SAME_SITE.has(site))
      throw new HostProblem('forbidden', 'requests from other web pages are refused');
    if (SIGN_IN.test(url)) return;
    const cookie = headers.cookie;
    if (!this.sessions.admits(Array.isArray(cookie) ? cookie.join('; ') : cookie))
      throw new HostProblem(
        'unauthorized',
        'sign in to this page with the link `netcli gui` opens (each link works once)',
      );
  }
}
