// The web graphical mode's own routes: the browsers signed in to it (listed, and each one ended),
// and how a page proves it is the page that signed in. Only the web mode's listener serves them
// (the socket has no browsers, Electron's window no sessions), so they are a table of their own
// beside the local API's.
import { z } from 'zod';
import type { RouteDef } from './control-routes.js';

/**
 * The header every API call and the event stream of the page carry: the page key, handed to the
 * page in the fragment of its address at sign-in (browsers never send a fragment to a server)
 * and kept in the tab's own storage. The session cookie alone opens nothing of the API: cookies
 * go to every port of a host, so another listener on it could be handed one.
 */
export const PAGE_KEY_HEADER = 'x-ferry-page';
/** The fragment parameter that carries the page key at sign-in: `/#page=KEY`. */
export const PAGE_KEY_FRAGMENT = 'page';
/** How long a one-time link (its token) may wait for its browser. */
export const SIGN_IN_TOKEN_LIFETIME_MS = 60_000;
/**
 * A session nothing has used for this long ends: its tab was closed, or the machine slept. An
 * open page holds its event stream, and a session with a request under way is never idle.
 */
export const BROWSER_SESSION_IDLE_MS = 30 * 60_000;
/**
 * Every session ends this long after sign-in, in use or not: about a workday. A session that got
 * into the wrong hands is of use to them no longer than this; it costs the user one `netcli gui`
 * a day.
 */
export const BROWSER_SESSION_LIFETIME_MS = 12 * 60 * 60_000;
/** What a page key, a session id and a one-time token look like (base64url). */
export const WEB_SECRET = /^[A-Za-z0-9_-]{1,64}$/;

export const BrowserSession = z.object({
  /** A name for the session in this list; not a secret, and no use to anyone but the page. */
  id: z.string().regex(WEB_SECRET),
  created_at: z.iso.datetime(),
  last_seen_at: z.iso.datetime(),
  /** When it ends at the latest, in use or not (sooner when left unused). */
  expires_at: z.iso.datetime(),
  /** The browser that asked. */
  current: z.boolean(),
});
export type BrowserSession = z.infer<typeof BrowserSession>;

export const BrowserSessionsResponse = z.object({ sessions: z.array(BrowserSession) });
export type BrowserSessionsResponse = z.infer<typeof BrowserSessionsResponse>;

export const BrowserSessionParams = z.object({ id: z.string().regex(WEB_SECRET) });

function route<const R extends RouteDef>(r: R): R {
  return r;
}

export const browserSessionRoutes = {
  listBrowserSessions: route({
    method: 'GET',
    path: '/gui/sessions',
    auth: 'none',
    status: 200,
    summary:
      'The browsers signed in to the web graphical mode: since, last seen, which is this one',
    response: BrowserSessionsResponse,
  }),
  endBrowserSession: route({
    method: 'DELETE',
    path: '/gui/sessions/:id',
    auth: 'none',
    status: 204,
    summary: 'Signs a browser out of the web graphical mode (this one too)',
    params: BrowserSessionParams,
    errors: ['not-found'],
  }),
} as const satisfies Record<string, RouteDef>;

export type BrowserSessionRoutes = typeof browserSessionRoutes;
