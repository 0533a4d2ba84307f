// A phone's config as a QR code image and a file name, made in the page.
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { PHONE_CONFIG } from '../../store/engine-answers.fake.js';
import { configFileName, qrAltText } from '../words/added-device.js';
import { qrCodeDataUrl } from './config-files.js';

describe('qrCodeDataUrl', () => {
  it('is the SVG QR code of the config (level M, margin 2) as a base64 data URL', async () => {
    const url = await qrCodeDataUrl(PHONE_CONFIG);
    const prefix = 'data:image/svg+xml;base64,';
    expect(url.startsWith(prefix)).toBe(true);
    const svg = Buffer.from(url.slice(prefix.length), 'base64').toString('utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const expected = await QRCode.toString(PHONE_CONFIG, {
      type: 'svg',
      errorCorrectionLevel: 'M',
      margin: 2,
    });
    expect(svg).toBe(expected);
    // Nothing of the config is in the image as text.
    expect(svg).not.toContain('PrivateKey');
  });
});

describe('the names of an added device’s things', () => {
  it('the QR code’s alternative text names the device', () => {
    expect(qrAltText('Anna’s phone')).toBe(
      'QR code of the WireGuard configuration for Anna’s phone',
    );
  });

  it('the file is named as a tunnel the WireGuard apps take as it is', () => {
    expect(configFileName('Anna-phone')).toBe('Anna-phone.conf');
    expect(configFileName('Anna’s phone')).toBe('Anna-s-phone.conf');
    expect(configFileName('Zoë tablet')).toBe('Zoe-tablet.conf');
    expect(configFileName('a very long name for a phone')).toBe('a-very-long-nam.conf');
    expect(configFileName('../../etc/passwd')).toBe('etc-passwd.conf');
    expect(configFileName('📱')).toBe('ferry.conf');
  });
});
