// Words and names for a phone or tablet just added: its QR code's alternative text and the name
// of its config file, which the WireGuard apps take as the tunnel's name.
import type { Translate } from '../../../contracts/i18n/translator.js';
import { english } from './english.js';

/** The QR code's alternative text (the e2e page object finds the image by it). */
export function qrAltText(name: string, t: Translate = english): string {
  return t('app.addDevice.qrAlt', { name });
}

/** The longest tunnel name the WireGuard apps and wg-quick take (an interface name). */
export const TUNNEL_NAME_MAX = 15;

/**
 * `<name>.conf`, the name made into a tunnel name the WireGuard apps import as it is: letters,
 * digits and `_=+.-` only (anything else a `-`), at most 15 characters, never empty.
 */
export function configFileName(name: string): string {
  const tunnel = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9_=+.-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, TUNNEL_NAME_MAX)
    .replace(/[-.]+$/, '');
  return `${tunnel || 'ferry'}.conf`;
}
