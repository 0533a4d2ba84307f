// The web graphical mode's two ways in, each spending a one-time token: the link netcli prints
// (GET /session/TOKEN, typed or pasted into the browser) and the sign-in page netcli opens (a
// file whose form posts the token to POST /session, so that it is never on a command line). Both
// set the session cookie and hand the page its key in the fragment of the app's address.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { PAGE_KEY_FRAGMENT } from '../../../contracts/browser-sessions.js';
import { SIGN_IN_FORM_PATH, SIGN_IN_LINK_PATH } from './web-guard.js';
import { sessionCookie, type WebSession, type WebSessions } from './web-sessions.js';

/** A sign-in form is one small field. */
const FORM_LIMIT = 1024;

const SPENT_LINK = `<!doctype html><meta charset="utf-8"><title>Ferry</title>
<p>This link has been used or has expired. Run <code>netcli gui</code> again to open Ferry.</p>\n`;

/** The app's address with the page key, which the browser keeps and never sends. */
function appAddress(session: WebSession): string {
  return `/#${PAGE_KEY_FRAGMENT}=${session.pageKey}`;
}

/**
 * Goes on to the app from a page of this origin. The form was posted from a file (another site
 * to the browser), and a redirect of it would arrive without the SameSite=Strict cookie just set.
 */
function onToTheApp(session: WebSession): string {
  return `<!doctype html><meta charset="utf-8"><title>Ferry</title>
<meta http-equiv="refresh" content="0;url=${appAddress(session)}">
<p>Opening Ferry…</p>\n`;
}

function spent(reply: FastifyReply): FastifyReply {
  return reply.code(401).type('text/html; charset=utf-8').send(SPENT_LINK);
}

export function registerSignIn(app: FastifyInstance, sessions: WebSessions): void {
  app.get(`${SIGN_IN_LINK_PATH}:token`, async (request, reply) => {
    const session = sessions.redeem((request.params as { token: string }).token);
    if (session === undefined) return spent(reply);
    return reply
      .code(303)
      .header('set-cookie', sessionCookie(session))
      .redirect(appAddress(session));
  });

  // Its own scope: form bodies are read here and nowhere else (the API takes JSON only).
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT },
      (_request, body, done) => done(null, new URLSearchParams(String(body))),
    );
    scope.post(SIGN_IN_FORM_PATH, async (request, reply) => {
      const token = (request.body as URLSearchParams | undefined)?.get('token');
      const session = token ? sessions.redeem(token) : undefined;
      if (session === undefined) return spent(reply);
      return reply
        .code(200)
        .header('set-cookie', sessionCookie(session))
        .type('text/html; charset=utf-8')
        .send(onToTheApp(session));
    });
  });
}
