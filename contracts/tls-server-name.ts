// The name a TLS client puts in its server_name: a DNS host name, never an address literal
// (RFC 6066 3), as a relay registers it for its TLS port and clients send it.
import { z } from 'zod';

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** The last label starts with a letter: "192.0.2.1" is an address, not a name. */
const TOP_LABEL = '[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const TLS_SERVER_NAME_PATTERN = new RegExp(`^(?:${LABEL}\\.)*${TOP_LABEL}$`);

/** True when `name` may be a TLS server_name: labels of letters, digits and inner dashes. */
export function isTlsServerName(name: string): boolean {
  return name.length <= 253 && TLS_SERVER_NAME_PATTERN.test(name);
}

export const TlsServerName = z
  .string()
  .max(253)
  .regex(
    TLS_SERVER_NAME_PATTERN,
    'a DNS name (labels of letters, digits and inner dashes, not an IP address, no trailing dot)',
  );
