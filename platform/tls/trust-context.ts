// A TLS context that trusts the system's roots and one extra CA bundle (a private control
// plane's), made once per bundle: `ca` given to each connection would parse every root
// certificate again (about 20 ms of CPU each), and `ca` replaces the default roots, so they are
// given again beside the extra ones. The engine's control transport and the relay's agent use it.
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

let cached: { extra: string; context: SecureContext } | undefined;

/** The context for `extra` (PEM); null: none (Node's default context, the system's roots). */
export function trustContext(extra: string | null): SecureContext | undefined {
  if (extra === null) return undefined;
  if (cached?.extra !== extra)
    cached = { extra, context: createSecureContext({ ca: [...rootCertificates, extra] }) };
  return cached.context;
}
