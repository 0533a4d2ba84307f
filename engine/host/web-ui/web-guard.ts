// Who the web graphical mode serves: a request must name the listener's own Host (a DNS
// rebinding page names its own), come from its own Origin when it carries one and always when it
// changes something (CSRF), never from another site (Sec-Fetch-Site), and carry the session
// cookie; everything but the page's own files also the session's page key. The two sign-in
// routes are the exceptions, where the one-time token is the authentication. Fails closed:
// anything unexpected is refused.
import type { IncomingHttpHeaders } from 'node:http';
import { PAGE_KEY_HEADER } from '../../../contracts/browser-sessions.js';
import { HttpProblem } from '../../../platform/http/http-problem.js';
import type { WebSession, WebSessions } from './web-sessions.js';

/** Where the sign-in page's form posts its token (netcli's file, see cli/launch.ts). */
export const SIGN_IN_FORM_PATH = '/session';
/** The path a printed one-time link is redeemed at: /session/TOKEN. */
export const SIGN_IN_LINK_PATH = '/session/';
/** The sign-in link exactly: one segment of token, nothing after it. */
const SIGN_IN_LINK = /^\/session\/[A-Za-z0-9_-]{1,64}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD']);
const SAME_SITE = new Set(['same-origin', 'none']);
/**
 * The Origin a file:// page sends. The sign-in page netcli opens is such a file; its form is
 * taken at the sign-in route only, where the token in it is what counts.
 */
const FILE_ORIGIN = 'null';

export interface WebRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

export class WebGuard {
  private readonly host: string;
  private readonly origin: string;

  /**
   * `origin`: the listener's own (`http://127.x.y.z:PORT`); `pageFiles`: the paths of the page's
   * own files, the only ones the cookie alone opens.
   */
  constructor(
    origin: string,
    private readonly sessions: WebSessions,
    private readonly pageFiles: ReadonlySet<string>,
  ) {
    const url = new URL(origin);
    this.host = url.host;
    this.origin = url.origin;
  }

  /**
   * The session a request belongs to, or undefined for a sign-in route. Throws `forbidden` (a
   * foreign Host, Origin or site) or `unauthorized` (no session, or not the page's key).
   */
  check({ method, url, headers }: WebRequest): WebSession | undefined {
    const host = headers.host?.trim().toLowerCase();
    if (host !== this.host)
      throw new HttpProblem('forbidden', `this address serves Ferry on ${this.host} only`);
    const verb = method.toUpperCase();
    const path = url.split('?')[0]!;
    const origin = headers.origin?.toLowerCase();
    if (verb === 'POST' && url === SIGN_IN_FORM_PATH) {
      if (origin !== undefined && origin !== FILE_ORIGIN && origin !== this.origin)
        throw new HttpProblem('forbidden', 'requests from other web pages are refused');
      return undefined;
    }
    if (origin !== undefined && origin !== this.origin)
      throw new HttpProblem('forbidden', 'requests from other web pages are refused');
    if (!SAFE_METHODS.has(verb) && origin === undefined)
      throw new HttpProblem('forbidden', 'a change must come from the Ferry page itself');
    const site = headers['sec-fetch-site'];
    if (typeof site === 'string' && !SAME_SITE.has(site))
      throw new HttpProblem('forbidden', 'requests from other web pages are refused');
    if (SAFE_METHODS.has(verb) && SIGN_IN_LINK.test(url)) return undefined;

    const session = this.sessions.byCookie(single(headers.cookie));
    if (session === undefined)
      throw new HttpProblem(
        'unauthorized',
        'sign in to this page with the link `netcli gui` opens (each link works once)',
      );
    if (!(SAFE_METHODS.has(verb) && this.pageFiles.has(path))) {
      const key = single(headers[PAGE_KEY_HEADER]);
      if (!this.sessions.pageKeyMatches(session, key))
        throw new HttpProblem(
          'unauthorized',
          'this page is not signed in (its page key is missing): open Ferry again with `netcli gui`',
        );
    }
    this.sessions.touch(session);
    return session;
  }
}
