// The browsers signed in to the web graphical mode, for the app to show and end: GET and DELETE
// under /api/v1/gui/sessions (contracts/browser-sessions.ts), answered from the sessions in
// memory and the session the guard found for the request.
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  browserSessionRoutes,
  type BrowserSessionsResponse,
} from '../../../contracts/browser-sessions.js';
import { HttpProblem, type AnswerFor } from '../../../platform/http/http-problem.js';
import { sendProblem } from '../../../platform/http/problem-writers.js';
import { parsePart } from '../http-protocol.js';
import type { WebSession, WebSessions } from './web-sessions.js';

export interface SessionRoutesOptions {
  prefix: string;
  sessions: WebSessions;
  /** The session the guard admitted the request for. */
  sessionOf: (request: FastifyRequest) => WebSession | undefined;
  /** Ends a session; its connections are cut, all but `answering` (the answer to the end). */
  end: (id: string, answering: ServerResponse) => boolean;
  answerFor: AnswerFor;
}

export function registerSessionRoutes(app: FastifyInstance, options: SessionRoutesOptions): void {
  const { prefix, sessions } = options;
  const { listBrowserSessions: list, endBrowserSession: end } = browserSessionRoutes;

  app.get(prefix + list.path, async (request, reply) => {
    const current = options.sessionOf(request);
    const answer: BrowserSessionsResponse = {
      sessions: sessions.list().map((s) => ({
        id: s.id,
        created_at: new Date(s.created).toISOString(),
        last_seen_at: new Date(s.lastSeen).toISOString(),
        expires_at: new Date(sessions.expiresAt(s)).toISOString(),
        current: s === current,
      })),
    };
    return reply.code(list.status).type('application/json').send(JSON.stringify(answer));
  });

  app.delete(prefix + end.path, async (request, reply) => {
    try {
      const { id } = parsePart(end.params, request.params, 'path') as { id: string };
      if (!options.end(id, reply.raw))
        throw new HttpProblem('not-found', 'no such browser is signed in (it may have ended)');
      return reply.code(end.status).send();
    } catch (e) {
      return sendProblem(reply, options.answerFor(e, 'endBrowserSession'));
    }
  });
}
