// The real openers of API access methods' raw streams, all from the engine's marked sockets (the
// kill switch lets the control plane out by that mark): straight to the control plane's
// addresses, to a relay's TLS port, or to a proxy.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

import {
  connectMarkedTcp,
  openMarkedSocket,
  type MarkedSocketOpener,
} from '../os/marked-socket.js';
import { CONTROL_FWMARK } from '../protection/firewall-policy.js';
import type { MethodOpeners } from './api-access.js';
import { openHttpConnect, openSocks5 } from './proxies.js';
import { openRelayStream } from './relay-stream.js';

/**
 * How long one address may take to answer before the next is tried: a blackholed first
 * address must not spend the whole budget (RFC 8305 races them; in turn is enough here).
 */
const ATTEMPT_TIMEOUT_MS = 4_000;

/** The addresses of a host: a literal as it is, a name through the system's resolver. */
export async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host) !== 0) return [host];
  return (await lookup(host, { all: true, order: 'verbatim' })).map((a) => a.address);
}

export function markedOpeners(open: MarkedSocketOpener = openMarkedSocket): MethodOpeners {
  return {
    async direct(host, port, signal) {
      let last: unknown = new Error(`${host} has no address`);
      for (const address of await addressesOf(host)) {
        if (signal.aborted) break;
        const attempt = new AbortController();
        const timer = setTimeout(
          () => attempt.abort(Object.assign(new Error('timed out'), { name: 'TimeoutError' })),
          ATTEMPT_TIMEOUT_MS,
        );
        const onAbort = () => attempt.abort(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        try {
          return await connectMarkedTcp(address, port, CONTROL_FWMARK, open, attempt.signal);
        } catch (e) {
          last = e;
        } finally {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
        }
      }
      throw last;
    },
    relay: (relay, signal) => openRelayStream(relay, { open, signal }),
    async proxy(method, host, port, signal) {
      const addresses = await addressesOf(method.host);
      const o = { open, signal, addresses };
      return method.kind === 'socks5'
        ? openSocks5(method, host, port, o)
        : openHttpConnect(method, host, port, o);
    },
    lookup: addressesOf,
  };
}
