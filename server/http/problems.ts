// The one table from error codes to HTTP statuses, and the problem+json writer.
import type { FastifyReply } from 'fastify';
import {
  PROBLEM_CONTENT_TYPE,
  problemType,
  type ErrorCode,
  type Problem,
} from '../../contracts/index.js';
import type { FerryError } from '../domain/errors.js';

export const STATUS_OF: Record<ErrorCode, number> = {
  'invalid-json': 400,
  'validation-failed': 400,
  'unsupported-media-type': 415,
  'payload-too-large': 413,
  unauthorized: 401,
  'invalid-credentials': 401,
  forbidden: 403,
  'region-not-in-plan': 403,
  'data-cap-reached': 403,
  'not-found': 404,
  'method-not-allowed': 405,
  'device-limit': 409,
  'key-in-use': 409,
  'region-exists': 409,
  'node-not-registered': 409,
  'no-node-available': 503,
  'rate-limited': 429,
  unavailable: 503,
  internal: 500,
};

const TITLE_OF: Record<ErrorCode, string> = {
  'invalid-json': 'Malformed JSON',
  'validation-failed': 'Invalid request',
  'unsupported-media-type': 'Unsupported media type',
  'payload-too-large': 'Request body too large',
  unauthorized: 'Not authenticated',
  'invalid-credentials': 'Wrong account number or password',
  forbidden: 'Not allowed',
  'region-not-in-plan': 'Region not in your plan',
  'data-cap-reached': 'Monthly data used up',
  'not-found': 'Not found',
  'method-not-allowed': 'Method not allowed',
  'device-limit': 'Device limit reached',
  'key-in-use': 'Public key already in use',
  'region-exists': 'Region exists',
  'node-not-registered': 'Node not registered',
  'no-node-available': 'No node available',
  'rate-limited': 'Too many requests',
  unavailable: 'Service unavailable',
  internal: 'Internal error',
};

export function problemOf(error: FerryError): Problem {
  const status = STATUS_OF[error.code];
  return {
    ...error.extra,
    type: problemType(error.code),
    title: TITLE_OF[error.code],
    status,
    detail: error.message,
    code: error.code,
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

export function sendProblem(reply: FastifyReply, error: FerryError): FastifyReply {
  const body = problemOf(error);
  if (body.status === 401) reply.header('www-authenticate', 'Bearer');
  return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}
