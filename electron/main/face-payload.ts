// A face call's payload `{params?, query?, body?}` checked against the IPC schema, refused with
// the same field errors the local API gives over HTTP (so the renderer shows one set of words
// whichever transport it runs on), and its parts parsed by the route's own schemas.
import {
  ipcSchema,
  localRoutes,
  type FaceRouteId,
  type FieldError,
  type RouteDef,
} from '../../contracts/index.js';
import { parsePart } from '../../engine/host/http-protocol.js';
import { FaceFailure } from './face-error.js';

export interface ParsedPayload {
  params: unknown;
  query: unknown;
  body: unknown;
}

const PARTS = ['params', 'query', 'body'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Each part through its route's schema, as the local API server does: no body at all is an
 * empty one. Throws an HttpProblem (validation-failed, with field errors) on the first bad part.
 */
export function parseParts(id: FaceRouteId, payload: unknown): ParsedPayload {
  const def: RouteDef = localRoutes[id];
  const p = isRecord(payload) ? payload : {};
  return {
    params: parsePart(def.params, p.params, 'path'),
    query: parsePart(def.query, p.query, 'query'),
    body: parsePart(def.body, def.body && p.body === undefined ? {} : p.body, 'body'),
  };
}

/**
 * Refuses a payload the call's IPC request schema refuses; a missing payload is an empty one.
 * Returns the payload as it was sent: whoever answers the call parses it (with transforms).
 */
export function checkPayload(id: FaceRouteId, payload: unknown): Record<string, unknown> {
  const given = payload === undefined ? {} : payload;
  const checked = ipcSchema.calls[id].request.safeParse(given);
  if (checked.success) return given as Record<string, unknown>;
  // The route's words for a bad part; they say which field and what it takes.
  parseParts(id, given);
  // Every part passed on its own: the payload itself is wrong (not an object, a member besides
  // params, query and body, or a part the route does not take at all).
  const errors: FieldError[] = checked.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          field: key,
          // eslint-disable-next-line i18next/no-literal-string -- a malformed call from the renderer (a bug): for its developer
          message: 'unknown member of the payload; it takes params, query and body',
          allowed: [...PARTS],
        }))
      : [{ field: issue.path.map(String).join('.'), message: issue.message }],
  );
  // eslint-disable-next-line i18next/no-literal-string -- a malformed call from the renderer (a bug): for its developer
  throw new FaceFailure('validation-failed', `invalid payload for ${id}`, { errors });
}
