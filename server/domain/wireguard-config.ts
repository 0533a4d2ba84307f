// Renders a connect answer as a wg-quick configuration for the official WireGuard apps, without
// the private key: a placeholder line stands where the device that made the key pair fills it in
// (the service never sees a private key, so it draws no QR code either).
import {
  GATEWAY_IPV4,
  GATEWAY_IPV6,
  WIREGUARD_PRIVATE_KEY_PLACEHOLDER,
  type ConnectResponse,
} from '../../contracts/index.js';
import { LAN_CIDRS, allowedIpsExcluding } from './allowed-ips.js';

/**
 * Characters that end a line in some reader of the config, or that hide or reorder text: every
 * control (Cc: \n, \v, \f, \r, NEL, ...), the line and paragraph separators, and the format
 * characters (bidi controls and the like) but the zero-width joiner that emoji are made with.
 * wg-quick splits lines on \n, the Android app on \n and \r, the Apple apps on every Unicode
 * newline (\n, \v, \f, \r, NEL, LS, PS).
 */
const NOT_ON_ONE_LINE = /(?:(?!\u200d)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}])+/gu;

/**
 * One value on one config line, whatever it holds. The service refuses such characters in
 * names already; the writer does not count on it.
 */
export function oneLine(value: string | number): string {
  return String(value).replace(NOT_ON_ONE_LINE, ' ');
}

export interface WgQuickOptions {
  /** Leave the LAN (private, link-local and multicast ranges) out of the tunnel. */
  allowLan?: boolean | undefined;
  /** The DNS line's resolvers (default: the connect answer's, the relay's own resolver). */
  dns?: readonly string[] | undefined;
}

/**
 * The AllowedIPs of the config: the connect answer's (everything), or with `allowLan` everything
 * but the LAN ranges. The resolvers and the node's gateway (its resolver, and the source of its
 * latency echoes) stay in the tunnel either way: DNS never leaves outside it.
 */
export function configAllowedIps(
  answer: ConnectResponse,
  dns: readonly string[],
  allowLan: boolean,
): string[] {
  if (!allowLan) return [...answer.tunnel.allowed_ips];
  return allowedIpsExcluding(answer.tunnel.allowed_ips, LAN_CIDRS, [
    ...dns,
    GATEWAY_IPV4,
    GATEWAY_IPV6,
  ]);
}

export function renderWgQuick(
  answer: ConnectResponse,
  deviceName: string,
  opts: WgQuickOptions = {},
): string {
  const v = oneLine;
  const host = v(answer.node.endpoint_host);
  const dns = opts.dns ?? answer.tunnel.dns;
  const lines = [
    '[Interface]',
    `# Ferry: ${v(deviceName)}, node ${v(answer.node.id)} (${v(answer.region)})`,
    WIREGUARD_PRIVATE_KEY_PLACEHOLDER,
    `Address = ${v(answer.tunnel.ipv4)}/32, ${v(answer.tunnel.ipv6)}/128`,
    `DNS = ${dns.map(v).join(', ')}`,
    `MTU = ${v(answer.tunnel.mtu)}`,
    '',
    '[Peer]',
    `PublicKey = ${v(answer.node.wireguard_public_key)}`,
    `AllowedIPs = ${configAllowedIps(answer, dns, opts.allowLan ?? false)
      .map(v)
      .join(', ')}`,
    `Endpoint = ${host.includes(':') ? `[${host}]` : host}:${v(answer.node.wireguard_port)}`,
    `PersistentKeepalive = ${v(answer.tunnel.keepalive)}`,
  ];
  return `${lines.join('\n')}\n`;
}
