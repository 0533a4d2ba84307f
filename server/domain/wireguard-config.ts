// Renders a connect answer as a wg-quick configuration (and its QR code) for the official
// WireGuard apps. A private key given for rendering is checked against the device's public key,
// used for this answer only, and never stored or logged.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import QRCode from 'qrcode';
import type { ConnectResponse } from '../../contracts/index.js';

// PKCS#8 header of a raw X25519 private key.
const PKCS8_X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** The base64 public key of a base64 X25519 private key, or undefined for a malformed one. */
export function publicKeyOf(privateKey: string): string | undefined {
  const raw = Buffer.from(privateKey, 'base64');
  if (raw.length !== 32 || raw.toString('base64') !== privateKey) return undefined;
  const key = createPrivateKey({
    key: Buffer.concat([PKCS8_X25519, raw]),
    format: 'der',
    type: 'pkcs8',
  });
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  return spki.subarray(spki.length - 32).toString('base64');
}

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

export function renderWgQuick(
  answer: ConnectResponse,
  deviceName: string,
  privateKey: string | undefined,
): string {
  const v = oneLine;
  const host = v(answer.node.endpoint_host);
  const lines = [
    '[Interface]',
    `# Ferry: ${v(deviceName)}, node ${v(answer.node.id)} (${v(answer.region)})`,
    privateKey === undefined
      ? '# PrivateKey = <the private key whose public key you registered for this device>'
      : `PrivateKey = ${v(privateKey)}`,
    `Address = ${v(answer.tunnel.ipv4)}/32, ${v(answer.tunnel.ipv6)}/128`,
    `DNS = ${answer.tunnel.dns.map(v).join(', ')}`,
    `MTU = ${v(answer.tunnel.mtu)}`,
    '',
    '[Peer]',
    `PublicKey = ${v(answer.node.wireguard_public_key)}`,
    `AllowedIPs = ${answer.tunnel.allowed_ips.map(v).join(', ')}`,
    `Endpoint = ${host.includes(':') ? `[${host}]` : host}:${v(answer.node.wireguard_port)}`,
    `PersistentKeepalive = ${v(answer.tunnel.keepalive)}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** An SVG QR code of the configuration, as the WireGuard apps scan it. */
export function qrSvg(config: string): Promise<string> {
  return QRCode.toString(config, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
