// The names and numbers the tunnel manager marks its own things with (interfaces, routing table,
// rules, socket mark), so that a later start can tell them from everybody else's and remove them.
import { randomBytes } from 'node:crypto';

/**
 * Every tunnel interface the engine makes starts with this. `fyt` never begins a name the test
 * network makes (`fy` + hex), nor one of wg-quick's (`wg`...).
 */
export const TUNNEL_INTERFACE_PREFIX = 'fyt';

/**
 * The routing table of the full tunnel (its default route) and the mark on the tunnel's own
 * sockets, which sends them around the tunnel (wg-quick's scheme, with a number of our own:
 * 0x6665, "fe").
 */
export const FERRY_ROUTE_TABLE = 0x6665;
export const FERRY_FWMARK = 0x6665;

/**
 * The full tunnel's policy rules, below the main table's 32766 and above wg-quick's default
 * 32764/32765: `to <LAN range> lookup main suppress_prefixlength 0` first (the LAN's specific
 * routes stay direct, a public prefix's do not: see fullTunnelRules), then
 * `not fwmark FERRY_FWMARK lookup FERRY_ROUTE_TABLE`.
 */
export const SUPPRESS_RULE_PRIORITY = 32700;
export const TUNNEL_RULE_PRIORITY = 32701;

const LABEL = /[^a-z0-9]/g;
const MAX_NAME = 15;
const SUFFIX_HEX = 6;

/**
 * A fresh interface name for a tunnel: the prefix, up to 6 letters or digits of `label` (e.g.
 * `main`, a service tunnel's tag) and 6 random hex digits, at most 15 characters (IFNAMSIZ - 1).
 * Random because /run/wireguard is shared by every network namespace of the machine.
 */
export function tunnelInterfaceName(
  label = '',
  random: (bytes: number) => Buffer = randomBytes,
): string {
  const room = MAX_NAME - TUNNEL_INTERFACE_PREFIX.length - SUFFIX_HEX;
  const tag = label.toLowerCase().replace(LABEL, '').slice(0, room);
  return `${TUNNEL_INTERFACE_PREFIX}${tag}${random(SUFFIX_HEX / 2).toString('hex')}`;
}

/** Whether an interface name is one of ours (made by tunnelInterfaceName). */
export function isTunnelInterfaceName(name: string): boolean {
  return (
    name.startsWith(TUNNEL_INTERFACE_PREFIX) && name.length <= MAX_NAME && /^[a-z0-9]+$/.test(name)
  );
}
