// The system resolver (DNS) while connected: the seam only. The Linux implementation (systemd-
// resolved over D-Bus or resolvectl, else /etc/resolv.conf kept aside and restored) comes with
// the DNS feature.

/**
 * Points the system's DNS at the tunnel while connected and puts back what was there before.
 * Failures are FerryError os-command-failed. Implementations remember what they replaced
 * across a crash of the engine, so that the next start can restore it.
 */
export interface Resolver {
  /** Uses `servers` (IP addresses) for every query, through `interfaceName`. */
  set(servers: readonly string[], interfaceName: string): Promise<void>;
  /** Restores the resolver as it was before the first `set`; a no-op when nothing was set. */
  restore(): Promise<void>;
}
