// The tray icon's look for each state, drawn in code (32×32 RGBA PNGs, anti-aliased): the state
// shows by its shape as well as its colour, for people who do not tell the colours apart.
//   disconnected: a grey ring, empty inside;
//   connecting:   an amber ring with a gap (turning, as it were) and a dot in the middle;
//   connected:    a green disc with a white tick;
//   error:        a red disc with a white exclamation mark.
// main.ts makes the tray's images from these bytes at 1× and 2×: nothing to ship or keep in step.
import { deflateSync } from 'node:zlib';
import type { EngineState } from '../../contracts/local-api.js';

export const TRAY_LOOKS = ['disconnected', 'connecting', 'connected', 'error'] as const;
export type TrayLook = (typeof TRAY_LOOKS)[number];

/** The look of a state; without a status (no engine yet, or none answering): disconnected. */
export function trayLook(state: EngineState | undefined, engineDown = false): TrayLook {
  if (engineDown) return 'error';
  switch (state) {
    case 'connected':
      return 'connected';
    case 'connecting':
    case 'reconnecting':
    case 'disconnecting':
      return 'connecting';
    case 'error':
      return 'error';
    default:
      return 'disconnected';
  }
}

type Rgb = readonly [number, number, number];
const COLOURS: Readonly<Record<TrayLook, Rgb>> = {
  disconnected: [0x8a, 0x93, 0x9e],
  connecting: [0xe0, 0x9a, 0x1a],
  connected: [0x1f, 0x9d, 0x4c],
  error: [0xd2, 0x2b, 0x2b],
};
const WHITE: Rgb = [0xff, 0xff, 0xff];

/** Distance from a point to a segment. */
function toSegment(px: number, py: number, ax: number, ay: number, bx: number, by: number) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** What covers a point of the 32×32 box (centre 16,16): the colour and its cover, or none. */
function paint(look: TrayLook, x: number, y: number): Rgb | null {
  const r = Math.hypot(x - 16, y - 16);
  const colour = COLOURS[look];
  switch (look) {
    case 'disconnected':
      return r <= 13 && r >= 9 ? colour : null;
    case 'connecting': {
      // The ring without its upper-right eighth, and a dot.
      const angle = Math.atan2(y - 16, x - 16);
      const gap = angle > -Math.PI / 2 && angle < -Math.PI / 4;
      if (r <= 13 && r >= 9 && !gap) return colour;
      return r <= 4 ? colour : null;
    }
    case 'connected': {
      if (r > 14) return null;
      const tick =
        toSegment(x, y, 9.5, 16.5, 14, 21) <= 2 || toSegment(x, y, 14, 21, 22.5, 11.5) <= 2;
      return tick ? WHITE : colour;
    }
    case 'error': {
      if (r > 14) return null;
      const bar = toSegment(x, y, 16, 8.5, 16, 17.5) <= 2;
      const dot = Math.hypot(x - 16, y - 22.5) <= 2.2;
      return bar || dot ? WHITE : colour;
    }
  }
}

export const TRAY_ICON_SIZE = 32;

/** The look's pixels, RGBA, 4×4 samples a pixel for smooth edges. */
export function trayPixels(look: TrayLook, size = TRAY_ICON_SIZE): Uint8Array {
  const out = new Uint8Array(size * size * 4);
  const scale = 32 / size;
  const n = 4;
  for (let py = 0; py < size; py++)
    for (let px = 0; px < size; px++) {
      let red = 0;
      let green = 0;
      let blue = 0;
      let covered = 0;
      for (let sy = 0; sy < n; sy++)
        for (let sx = 0; sx < n; sx++) {
          const c = paint(look, (px + (sx + 0.5) / n) * scale, (py + (sy + 0.5) / n) * scale);
          if (!c) continue;
          red += c[0];
          green += c[1];
          blue += c[2];
          covered++;
        }
      const at = (py * size + px) * 4;
      if (covered === 0) continue;
      out[at] = Math.round(red / covered);
      out[at + 1] = Math.round(green / covered);
      out[at + 2] = Math.round(blue / covered);
      out[at + 3] = Math.round((255 * covered) / (n * n));
    }
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** RGBA pixels as a PNG file (8 bits a channel, no interlace). */
export function encodePng(pixels: Uint8Array, width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++)
    Buffer.from(pixels.buffer, pixels.byteOffset + y * width * 4, width * 4).copy(
      rows,
      y * (width * 4 + 1) + 1,
    );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

const pngs = new Map<string, Buffer>();

/** The look as a PNG (32×32, or `size` square: 64 for a screen at twice the scale). */
export function trayIconPng(look: TrayLook, size = TRAY_ICON_SIZE): Buffer {
  const key = `${look}@${size}`;
  let png = pngs.get(key);
  if (!png) {
    png = encodePng(trayPixels(look, size), size, size);
    pngs.set(key, png);
  }
  return png;
}
