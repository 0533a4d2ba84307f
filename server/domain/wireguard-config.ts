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

export function renderWgQuick(
  answer: ConnectResponse,
  deviceName: string,
  privateKey: string | undefined,
): string {
  const lines = [
    '[Interface]',
    `# Ferry: ${deviceName.replace(/[\r\n]/g, ' ')}, node ${answer.node.id} (${answer.region})`,
    privateKey === undefined
      ? '# PrivateKey = <the private key whose public key you registered for this device>'
      : `PrivateKey = ${privateKey}`,
    `Address = ${answer.tunnel.ipv4}/32, ${answer.tunnel.ipv6}/128`,
    `DNS = ${answer.tunnel.dns.join(', ')}`,
    `MTU = ${answer.tunnel.mtu}`,
    '',
    '[Peer]',
    `PublicKey = ${answer.node.wireguard_public_key}`,
    `AllowedIPs = ${answer.tunnel.allowed_ips.join(', ')}`,
    `Endpoint = ${answer.node.endpoint_host.includes(':') ? `[${answer.node.endpoint_host}]` : answer.node.endpoint_host}:${answer.node.wireguard_port}`,
    `PersistentKeepalive = ${answer.tunnel.keepalive}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** An SVG QR code of the configuration, as the WireGuard apps scan it. */
export function qrSvg(config: string): Promise<string> {
  return QRCode.toString(config, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
