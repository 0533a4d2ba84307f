// A fetch that hands each request to a Fastify app in process (app.inject), so that the typed
// control client runs against a control plane in a test without a socket. Test code only.
import type { FastifyInstance } from 'fastify';
import type { FetchLike } from '../../contracts/index.js';

/** Statuses whose answers have no body (a Response refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

export function injectFetch(app: FastifyInstance): FetchLike {
  return async (url, init) => {
    init.signal?.throwIfAborted();
    const { pathname, search } = new URL(url);
    const method = (init.method ?? 'GET').toUpperCase();
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== 'string')
      throw new TypeError('injectFetch sends string bodies only');
    const res = await app.inject({
      method: method as 'GET',
      url: pathname + search,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      ...(typeof body === 'string' ? { payload: body } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, String(v));
    }
    const empty = NO_BODY.has(res.statusCode) || method === 'HEAD';
    return new Response(empty ? null : res.rawPayload, { status: res.statusCode, headers });
  };
}
