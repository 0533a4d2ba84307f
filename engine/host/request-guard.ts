// The local API's answer to DNS rebinding and to web pages: a request must name the API's own
// Host, and no browser request (they carry Origin) is ever served. Fails closed.
import type { IncomingHttpHeaders } from 'node:http';
import { LOCAL_API_HOST } from '../../contracts/index.js';
import { HttpProblem } from '../../platform/http/http-problem.js';

/** The Hosts a client of the socket names: the API's own, and what curl sends by habit. */
export const ALLOWED_HOSTS: readonly string[] = [LOCAL_API_HOST, 'localhost'];

/** Throws `forbidden` for a request a browser (or a page that fooled one) could have sent. */
export function checkRequestOrigin({ headers }: { headers: IncomingHttpHeaders }): void {
  if (headers.origin !== undefined) {
    throw new HttpProblem('forbidden', 'requests from web pages (with an Origin) are refused');
  }
  const host = headers.host?.trim().toLowerCase();
  if (host === undefined || !ALLOWED_HOSTS.includes(host)) {
    throw new HttpProblem(
      'forbidden',
      `the Host must be ${ALLOWED_HOSTS.join(' or ')}; requests for other names are refused`,
    );
  }
}
