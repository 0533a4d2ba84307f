// A phone's config as a QR code image and as a file to save, both made in the page from the
// config text (nothing leaves it): an SVG data URL (the CSP allows img-src data:) and a Blob URL
// for a download link. Each lasts as long as the component that asked for it.
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';

/** The QR code of `text` as an `<img>` source: an SVG, base64 in a data URL. */
export async function qrCodeDataUrl(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  const bytes = new TextEncoder().encode(svg);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `data:image/svg+xml;base64,${btoa(binary)}`;
}

export type QrState = { state: 'making' } | { state: 'made'; src: string } | { state: 'failed' };

/** The QR code of `text`, made once per text; forgotten when the component goes. */
export function useQrCode(text: string): QrState {
  const [made, setMade] = useState<{ text: string; qr: QrState } | null>(null);
  useEffect(() => {
    let live = true;
    qrCodeDataUrl(text).then(
      (src) => live && setMade({ text, qr: { state: 'made', src } }),
      () => live && setMade({ text, qr: { state: 'failed' } }),
    );
    return () => {
      live = false;
      setMade(null);
    };
  }, [text]);
  return made?.text === text ? made.qr : { state: 'making' };
}

/** A Blob URL holding `text`, for a download link; revoked when the component goes. */
export function useFileUrl(text: string): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const made = URL.createObjectURL(new Blob([text], { type: 'application/octet-stream' }));
    setUrl(made);
    return () => {
      URL.revokeObjectURL(made);
      setUrl(null);
    };
  }, [text]);
  return url;
}
