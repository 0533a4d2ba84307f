// The problem+json writers: through Fastify, on a bare Node response, and straight onto a
// socket for what fails before Node has a request (an HTTP parse error).
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { PROBLEM_CONTENT_TYPE } from '../../contracts/index.js';
import type { ProblemAnswer } from './http-problem.js';

export function sendProblem(reply: FastifyReply, answer: ProblemAnswer): FastifyReply {
  return reply
    .code(answer.body.status)
    .headers(answer.headers)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(answer.body));
}

/** The headers of an answer that ends its connection: no request follows on it. */
function closingHeaders(body: string): Record<string, string> {
  return {
    'content-type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
}

/** Writes a problem on a bare Node response (no Fastify request exists for it). */
export function writeProblem(res: ServerResponse, answer: ProblemAnswer): void {
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.body.status, { ...answer.headers, ...closingHeaders(body) });
  res.end(body);
}

/**
 * A whole HTTP/1.1 answer, for a socket whose request could not be parsed: there is no
 * response object, and the connection cannot be reused.
 */
export function rawProblemResponse(answer: ProblemAnswer): string {
  const body = JSON.stringify(answer.body);
  const status = answer.body.status;
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    ...Object.entries({ ...closingHeaders(body), ...answer.headers }).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
