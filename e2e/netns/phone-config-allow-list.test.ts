// What a phone's config holds when the control plane (or whoever answers for it) adds to it:
// `netcli devices add` on a laptop whose service is a proxy on its loopback in front of the real
// control plane, the proxy changing the config the control plane renders. A PostUp (which
// wg-quick runs as root) refuses the device with a clear error and writes no file; a config
// whose comments, letter case and line ends differ is rebuilt from its fields, and its QR code
// (decoded with zbarimg) holds exactly the rebuilt config.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetcliHost } from './netcli-host.js';
import type { ManagedProcess } from './test-network.js';
import { requireTools, sh } from './test-network.js';
import { Testbed } from './testbed.js';

const PROXY_PORT = 8081;

/**
 * Passes every request on to the control plane (CONTROL_URL) and its answer back, but for a
 * config (POST /devices/:id/wireguard-config), which it changes as the file MODE_FILE says:
 * `postup` adds a PostUp line, `disguised` adds comments that hold PostUp and PreUp, writes the
 * keys in lower case and the line ends as CRLF.
 */
const TAMPERING_PROXY = `
const http = require('node:http');
const fs = require('node:fs');
const target = new URL(process.env.CONTROL_URL);
const change = {
  none: (c) => c,
  postup: (c) => c.replace('[Interface]\\n', '[Interface]\\nPostUp = touch /tmp/ferry-pwned\\n'),
  disguised: (c) =>
    c
      .replace('[Interface]\\n', '[interface]\\n# PostUp = touch /tmp/ferry-pwned\\n')
      .replace(/^(Endpoint = .*)$/m, '$1 # PreUp = reboot')
      .replace(/^MTU = /m, 'mtu=')
      .replaceAll('\\n', '\\r\\n'),
};
http.createServer((req, res) => {
  const body = [];
  req.on('data', (d) => body.push(d));
  req.on('end', () => {
    const headers = { ...req.headers, host: target.host };
    const out = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        const parts = [];
        answer.on('data', (d) => parts.push(d));
        answer.on('end', () => {
          let text = Buffer.concat(parts);
          if (req.url.endsWith('/wireguard-config') && answer.statusCode === 200) {
            const mode = fs.readFileSync(process.env.MODE_FILE, 'utf8').trim();
            const json = JSON.parse(text.toString('utf8'));
            json.config = change[mode](json.config);
            text = Buffer.from(JSON.stringify(json));
          }
          const back = { ...answer.headers, 'content-length': String(text.length) };
          delete back['transfer-encoding'];
          res.writeHead(answer.statusCode, back);
          res.end(text);
        });
      },
    );
    out.on('error', () => res.destroy());
    out.end(Buffer.concat(body));
  });
}).listen(${PROXY_PORT}, '127.0.0.1', () => console.log('listening'));
`;

describe('a phone’s config, when the control plane adds to it', () => {
  let bed: Testbed;
  let laptop: NetcliHost;
  let proxy: ManagedProcess;
  let files: string;
  let modeFile: string;

  beforeAll(async () => {
    requireTools(['zbarimg']);
    // Plain HTTP to the control plane: the proxy reads and changes its answers.
    bed = await Testbed.start({ controlPlaneTls: false });
    try {
      // A config points at a node: the control plane renders none without one.
      await bed.addRelay('tokyo', 'asia-east');
      laptop = await NetcliHost.start(bed, 'laptop');
      files = path.join(bed.net.dir, 'laptop-files');
      mkdirSync(files, { mode: 0o700 });
      modeFile = path.join(bed.net.dir, 'proxy-mode');
      writeFileSync(modeFile, 'none');
      proxy = bed.net.spawn(
        'laptop',
        'tampering-proxy',
        [process.execPath, '-e', TAMPERING_PROXY],
        { CONTROL_URL: bed.controlUrl, MODE_FILE: modeFile },
      );
      await bed.net.waitFor('the proxy to listen', 10_000, () =>
        proxy.output().includes('listening') ? true : undefined,
      );
      laptop.json(
        'init',
        '--protocol',
        'wireguard',
        '--endpoint',
        `http://127.0.0.1:${PROXY_PORT}`,
      );
      laptop.json('account', 'create', '--device-name', 'laptop');
    } catch (e) {
      await bed.stop();
      throw e;
    }
  }, 120_000);

  afterAll(async () => {
    await proxy?.stop();
    await laptop?.stop();
    await bed?.stop();
  }, 60_000);

  const deviceNames = () =>
    (laptop.json('devices').devices as { name: string }[]).map((d) => d.name);

  it('refuses a config with a PostUp: a clear error, no file written, the device revoked again', () => {
    writeFileSync(modeFile, 'postup');
    const conf = path.join(files, 'phone.conf');
    const png = path.join(files, 'phone.png');
    const r = laptop.run(
      'devices',
      'add',
      '--kind',
      'phone',
      '--name',
      'phone',
      '--region',
      'asia-east',
      '--out',
      conf,
      '--qr',
      png,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^netcli: the service’s config for the device was refused: line \d+ holds PostUp, a field this client does not pass on\n/,
    );
    expect(r.stdout).not.toContain('PostUp');
    expect(existsSync(conf)).toBe(false);
    expect(existsSync(png)).toBe(false);
    expect(deviceNames()).toEqual(['laptop']);
  }, 60_000);

  it('rebuilds a config whose comments, letter case and line ends differ: its QR code holds no PostUp', () => {
    writeFileSync(modeFile, 'disguised');
    const conf = path.join(files, 'tablet.conf');
    const png = path.join(files, 'tablet.png');
    const added = laptop.json(
      'devices',
      'add',
      '--kind',
      'tablet',
      '--name',
      'tablet',
      '--region',
      'asia-east',
      '--out',
      conf,
      '--qr',
      png,
    );
    const config = readFileSync(conf, 'utf8');
    expect(config).toBe(added.config);
    expect(config).not.toMatch(/PostUp|PreUp|pwned|reboot|#|\r/);
    expect(config.split('\n').map((l) => l.split(' = ')[0])).toEqual([
      '[Interface]',
      'PrivateKey',
      'Address',
      'DNS',
      'MTU',
      '',
      '[Peer]',
      'PublicKey',
      'AllowedIPs',
      'Endpoint',
      'PersistentKeepalive',
      '',
    ]);
    const key = /^PrivateKey = (\S+)$/m.exec(config)![1]!;
    expect(sh('wg', ['pubkey'], `${key}\n`).trim()).toBe(added.device.wireguard_public_key);
    // The QR code a phone scans is that config, byte for byte.
    expect(sh('zbarimg', ['--raw', '-q', '-Sbinary', png])).toBe(config);
    expect(deviceNames()).toEqual(['laptop', 'tablet']);
  }, 60_000);
});
