// A refusal of HTTP itself (no such route, a body that is not JSON, a method the path does not
// take), and the problem+json answer each room's error table makes of what was thrown.
import type { FastifyError } from 'fastify';
import type { ErrorCode, FieldError } from '../../contracts/index.js';

/** Fastify's limit on one path parameter; longer ones are answered 414. */
export const MAX_PARAM_LENGTH = 100;

/** A problem+json body: the members every problem has, and a room's own extras. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

/** One refusal as it is sent: its body, and its headers besides the content type. */
export interface ProblemAnswer {
  body: ProblemBody;
  headers: Record<string, string>;
}

/**
 * A room's one error table: the answer for anything thrown on the way to or in a handler, an
 * HttpProblem, the room's own refusals and a bug alike. A bug is answered `internal` without its
 * text (the room logs it, never who asked or what they sent). `route` names the route, if any.
 */
export type AnswerFor = (error: unknown, route?: string) => ProblemAnswer;

/** A refusal of the request by HTTP itself (or a room's guard): its code says which. */
export class HttpProblem extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  /** Headers the answer carries (Allow with a 405, Accept-Encoding with a 415). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    detail: string,
    opts: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'HttpProblem';
    this.code = code;
    this.errors = opts.errors;
    this.headers = opts.headers ?? {};
  }
}

export function payloadTooLarge(limit: number): HttpProblem {
  return new HttpProblem('payload-too-large', `request bodies are limited to ${limit} bytes`);
}

/**
 * What Fastify raises itself (a path it cannot decode, a parameter too long, a body too large or
 * of a type no parser takes) as an HttpProblem; anything else is returned as it is.
 */
export function fromFramework(error: unknown, bodyLimit: number): unknown {
  const e = error as Partial<FastifyError> | null;
  if (typeof e !== 'object' || e === null || error instanceof HttpProblem) return error;
  if (e.code === 'FST_ERR_BAD_URL')
    return new HttpProblem('bad-request', 'the path is not valid (a malformed % escape?)');
  if (e.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return new HttpProblem(
      'uri-too-long',
      `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`,
    );
  const status = e.statusCode;
  if (status === 413) return payloadTooLarge(bodyLimit);
  if (status === 415)
    return new HttpProblem('unsupported-media-type', 'send JSON (content-type: application/json)');
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new HttpProblem('bad-request', 'the request could not be read');
  return error;
}

/** The room's answer for anything thrown, Fastify's own refusals first made HTTP problems. */
export function answerOf(
  answerFor: AnswerFor,
  error: unknown,
  bodyLimit: number,
  route?: string,
): ProblemAnswer {
  return answerFor(fromFramework(error, bodyLimit), route);
}
