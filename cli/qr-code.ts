// QR codes of a device's WireGuard config, as the official apps scan them: drawn in the terminal,
// or as a PNG or SVG file. Loaded only when `netcli devices add` runs (scripts/build-netcli.ts
// keeps it, and qrcode, out of the bundle every other command starts from).
import QRCode from 'qrcode';

/**
 * The code as text for the terminal, two modules per character cell. On a terminal its colours
 * are set (dark on light, whatever the theme: scanners read that reliably); elsewhere (a pipe,
 * a file) it is plain characters. Low error correction keeps it small, as `qrencode -t ansiutf8`
 * does for WireGuard's own instructions.
 */
export function terminalQrCode(text: string, isTTY: boolean): Promise<string> {
  return isTTY
    ? QRCode.toString(text, { type: 'terminal', small: true, errorCorrectionLevel: 'L' })
    : QRCode.toString(text, { type: 'utf8', errorCorrectionLevel: 'L' });
}

/** The code as a file's contents: a PNG (8 pixels a module) or an SVG. */
export async function qrCodeFile(text: string, format: 'png' | 'svg'): Promise<Buffer | string> {
  return format === 'png'
    ? QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 8 })
    : QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
}
