// The one table from error codes to HTTP answers, and the problem+json writers: through Fastify,
// and straight onto a socket for what fails before Fastify has a request (HTTP parse errors).
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';
import {
  ERROR_STATUS,
  PROBLEM_CONTENT_TYPE,
  RETRY_AFTER_STATUSES,
  problemType,
  type ControlProblem,
  type ErrorCode,
} from '../../contracts/index.js';
import type { FerryError } from '../domain/errors.js';

const TITLE_OF: Record<ErrorCode, string> = {
  'bad-request': 'Malformed request',
  'invalid-json': 'Malformed JSON',
  'validation-failed': 'Invalid request',
  unauthorized: 'Not authenticated',
  'invalid-credentials': 'Wrong account number or password',
  forbidden: 'Not allowed',
  'region-not-in-plan': 'Region not in your plan',
  'data-cap-reached': 'Monthly data used up',
  'not-found': 'Not found',
  'method-not-allowed': 'Method not allowed',
  'request-timeout': 'Request timed out',
  'device-limit': 'Device limit reached',
  'key-in-use': 'Public key already in use',
  'key-mismatch': 'Key does not match',
  'region-exists': 'Region exists',
  'node-not-registered': 'Node not registered',
  'tunnel-limit': 'Tunnel limit reached',
  'tunnel-exists': 'Tunnel exists',
  'platform-unverified': 'No node verified for the platform',
  'payload-too-large': 'Request body too large',
  'uri-too-long': 'Path too long',
  'unsupported-media-type': 'Unsupported media type',
  'unsupported-content-encoding': 'Unsupported content encoding',
  'expectation-failed': 'Expectation failed',
  'rate-limited': 'Too many requests',
  'headers-too-large': 'Request headers too large',
  internal: 'Internal error',
  'no-node-available': 'No node available',
  unavailable: 'Service unavailable',
};

/** Retry-After when the error does not say: a moment, for a load balancer or a retry loop. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

export function problemOf(error: FerryError): ControlProblem {
  return {
    ...error.extra,
    type: problemType(error.code),
    title: TITLE_OF[error.code],
    status: statusOf(error.code),
    detail: error.message,
    code: error.code,
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

/** The headers an answer with this error carries besides its content type. */
export function problemHeaders(
  error: FerryError,
  extra: Record<string, string> = {},
): Record<string, string> {
  const status = statusOf(error.code);
  const headers: Record<string, string> = { ...extra };
  if (status === 401) headers['www-authenticate'] = 'Bearer';
  if (RETRY_AFTER_STATUSES.includes(status))
    headers['retry-after'] = String(error.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS);
  return headers;
}

export function sendProblem(
  reply: FastifyReply,
  error: FerryError,
  headers: Record<string, string> = {},
): FastifyReply {
  const body = problemOf(error);
  reply.headers(problemHeaders(error, headers));
  return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}

/**
 * A whole HTTP/1.1 answer, for a socket whose request could not be parsed: there is no
 * response object, and the connection cannot be reused.
 */
export function rawProblemResponse(
  error: FerryError,
  headers: Record<string, string> = {},
): string {
  const body = JSON.stringify(problemOf(error));
  const status = statusOf(error.code);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    `content-type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    ...Object.entries(problemHeaders(error, headers)).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Closes a connection whose request we stopped reading, the way HTTP asks (RFC 9112 9.6):
 * our answer is sent and our side shut, then what the client still sends is read and dropped
 * until it closes its side or `lingerMs` pass. Closing at once with unread data would make the
 * kernel reset the connection, and the client could lose our answer with it.
 */
export function closeGracefully(socket: Socket, lingerMs: number): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.end();
}
