// Whether a host names this machine: the name localhost, an IPv4 loopback address (127/8) or
// ::1, as literals. Plain HTTP to such a host crosses no network. No other name counts, even
// one under .localhost: a resolver on the network could answer it with an address elsewhere.

const IPV4_LOOPBACK = /^127\.(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){2}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;

/** `host` as a URL's hostname gives it (brackets around IPv6 allowed), or as typed. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || IPV4_LOOPBACK.test(h) || h === '::1' || h === '0:0:0:0:0:0:0:1';
}
