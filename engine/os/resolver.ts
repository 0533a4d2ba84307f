// The system resolver (DNS) while connected: the seam. Its Linux implementations are
// resolved.ts (systemd-resolved through resolvectl) and resolv-conf.ts (/etc/resolv.conf kept
// aside and restored).

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
  /**
   * The home network's resolvers: those the system used before the first `set` (now, when
   * nothing is set), IPv4 and not on loopback (a local stub's upstream is not known); [] when
   * none is known. The engine's resolver asks them for names that are at home.
   */
  homeServers(): Promise<string[]>;
}
