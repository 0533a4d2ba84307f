// The local API's part in platform/http's protocol: its body limit, its guard (Host, Origin, a
// session) and refusal while starting or stopping, its error table with bugs logged, and the
// words of its field errors (the configuration's keys have their own).
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { ClientConfigPatch, configFieldErrors } from '../../contracts/index.js';
import type { AllowedMethods } from '../../platform/http/allowed-methods.js';
import { HttpProblem } from '../../platform/http/http-problem.js';
import type { HttpProtocolOptions } from '../../platform/http/protocol.js';
import {
  parsePart as parseAnyPart,
  type PartOptions,
  type RequestPart,
} from '../../platform/http/request-parts.js';
import { internalProblem, problemFor } from './problems.js';

/** Request bodies are small settings and names; anything larger is refused unread. */
export const BODY_LIMIT = 64 * 1024;

/** A part the route takes nothing in is refused; the configuration's keys have their words. */
export const LOCAL_PARTS: PartOptions = {
  undeclared: 'refuse',
  ownWords: (schema, error) =>
    schema === ClientConfigPatch ? configFieldErrors(error) : undefined,
};

/** A request part through its route's schema, refused as the local API refuses it. */
export function parsePart(schema: z.ZodType | undefined, input: unknown, where: RequestPart) {
  return parseAnyPart(schema, input, where, LOCAL_PARTS);
}

export interface LocalProtocolOptions {
  allowed: AllowedMethods;
  /** False while the socket is being secured and once shutting down: requests get 503. */
  serving: () => boolean;
  /** True once shutting down. */
  closing: () => boolean;
  /**
   * Throws an HttpProblem for a request this listener must not serve (Host, Origin, a missing
   * session); runs before anything else, unknown paths included.
   */
  guard: (request: FastifyRequest) => void;
  /** Where bugs go; never a request's contents or an address. */
  log?: Pick<Logger, 'error'> | undefined;
}

export function localProtocol(options: LocalProtocolOptions): HttpProtocolOptions {
  return {
    bodyLimit: BODY_LIMIT,
    allowed: options.allowed,
    closing: options.closing,
    admit: (request) => {
      if (!options.serving()) {
        throw new HttpProblem('unavailable', 'the engine host is starting or stopping', {
          headers: { 'retry-after': '1' },
        });
      }
      // Before anything else, unknown paths included: a foreign page learns nothing.
      options.guard(request);
    },
    answerFor: (error, route) => {
      const known = problemFor(error);
      if (known) return known;
      const e = error as Error | undefined;
      options.log?.error(
        { route, err: { name: e?.name, message: e?.message, stack: e?.stack } },
        'bug',
      );
      return internalProblem();
    },
  };
}
