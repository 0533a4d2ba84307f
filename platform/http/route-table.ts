// A route table on a Fastify app: one registration per route (HEAD beside GET but for streams,
// a body limit of its own where the room gives one), each failure answered from the room's
// error table, and the route's answer checked against its schema and sent.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDef } from '../../contracts/index.js';
import { methodsOf } from './allowed-methods.js';
import { answerOf, type AnswerFor } from './http-problem.js';
import { sendProblem } from './problem-writers.js';

export interface RouteTableOptions<Id extends string> {
  /** Put before each route's path ('' inside a Fastify scope that has its own prefix). */
  prefix: string;
  routes: Readonly<Partial<Record<Id, RouteDef>>>;
  answerFor: AnswerFor;
  /** The listener's body limit, for 413 answers. */
  bodyLimit: number;
  /** A route's own body limit, where it takes more than the listener's. */
  bodyLimitOf?: (def: RouteDef) => number | undefined;
  /** Answers one request: reads its parts, calls the room's handler, sends (or streams). */
  serve: (id: Id, def: RouteDef, request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

export function registerRouteTable<Id extends string>(
  app: FastifyInstance,
  options: RouteTableOptions<Id>,
): void {
  for (const [id, def] of Object.entries(options.routes) as [Id, RouteDef][]) {
    const bodyLimit = options.bodyLimitOf?.(def);
    app.route({
      method: def.method,
      url: options.prefix + def.path,
      exposeHeadRoute: methodsOf(def).includes('HEAD'),
      ...(bodyLimit === undefined ? {} : { bodyLimit }),
      handler: async (request, reply) => {
        try {
          await options.serve(id, def, request, reply);
        } catch (e) {
          // Once a stream has begun there is no answer left to give.
          if (!reply.sent && !reply.raw.headersSent)
            sendProblem(reply, answerOf(options.answerFor, e, bodyLimit ?? options.bodyLimit, id));
        }
        return reply;
      },
    });
  }
}

/**
 * The handler's value as its route's schema reads it; a value outside the schema is a bug of
 * the room (answered `internal`), never sent.
 */
export function checkedAnswer(id: string, def: RouteDef, value: unknown): unknown {
  if (def.response === undefined) return value;
  const answer = def.response.safeParse(value);
  if (answer.success) return answer.data;
  const fields = [...new Set(answer.error.issues.map((i) => i.path.join('.')))];
  throw new Error(`the answer to ${id} does not match its schema at ${fields}`);
}

/** The route's status, with the value as JSON where the route answers with one. */
export function sendAnswer(reply: FastifyReply, def: RouteDef, value: unknown): void {
  if (def.response === undefined) {
    reply.code(def.status).send();
    return;
  }
  reply.code(def.status).type('application/json').send(JSON.stringify(value));
}
