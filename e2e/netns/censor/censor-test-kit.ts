// What the censor's namespace tests do from either side of the border: small TCP and UDP servers
// on a host, one TCP exchange from a host (what came back and how it ended), TLS clients that are
// not a browser (curl, openssl s_client, Node), UDP datagrams, and a first packet that Wu et al.'s
// detector flags.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

import type { ManagedProcess, TestNetwork } from '../test-network.js';
import { classifyFirstPacket } from './fet-detector.js';

export interface Exchange {
  connected: boolean;
  bytes: number;
  /** The first bytes that came back, latin1. */
  text: string;
  ended: 'fin' | 'reset' | 'timeout' | 'error';
  error?: string;
}

/**
 * A TCP server on `port`: `echo` answers each chunk with `ok <length>`; `swallow` reads and never
 * answers (today's Ferry TCP port, to a stranger).
 */
export function startTcpServer(
  net: TestNetwork,
  host: string,
  port: number,
  mode: 'echo' | 'swallow',
): ManagedProcess {
  const script = `require('node:net').createServer((s) => {
    s.on('error', () => {});
    ${mode === 'echo' ? "s.on('data', (d) => s.write('ok ' + d.length + '\\n'));" : "s.on('data', () => {});"}
  }).listen(${port}, '0.0.0.0', () => console.log('listening'));`;
  return net.spawn(host, `tcp-${mode}-${port}`, [process.execPath, '-e', script]);
}

/**
 * Connects from `host` to address:port, writes `data`, and reports what happened: ends its side
 * once an answer has come, or gives up after `timeoutMs`.
 */
export function tcpExchange(
  net: TestNetwork,
  host: string,
  address: string,
  port: number,
  data: Buffer,
  timeoutMs = 2000,
): Exchange {
  const script = `
    const s = require('node:net').connect(${port}, '${address}');
    const r = { connected: false, bytes: 0, text: '', ended: 'timeout' };
    s.on('connect', () => { r.connected = true; s.write(Buffer.from('${data.toString('hex')}', 'hex')); });
    s.on('data', (d) => { r.bytes += d.length; if (r.text.length < 200) r.text += d.toString('latin1'); s.end(); });
    s.on('end', () => { r.ended = 'fin'; s.end(); });
    s.on('error', (e) => { r.ended = e.code === 'ECONNRESET' ? 'reset' : 'error'; r.error = e.code; });
    s.on('close', () => { clearTimeout(t); process.stdout.write(JSON.stringify(r)); });
    const t = setTimeout(() => s.destroy(), ${timeoutMs});`;
  return JSON.parse(net.exec(host, [process.execPath, '-e', script])) as Exchange;
}

/** Random bytes that Algorithm 1 flags (no exemption applies), `length` long. */
export function flaggedBytes(length = 200): Buffer {
  for (;;) {
    const b = randomBytes(length);
    if (classifyFirstPacket(b).flagged) return b;
  }
}

/** An HTTP request: exempt (Ex2, Ex5). */
export const HTTP_GET = Buffer.from('GET / HTTP/1.1\r\nHost: example\r\n\r\n');

/** A command inside a host's namespace that may fail: its status and output. */
function inHost(net: TestNetwork, host: string, argv: readonly string[], input?: string) {
  return spawnSync('ip', ['netns', 'exec', net.host(host).ns, ...argv], {
    encoding: 'utf8',
    input,
  });
}

export interface CurlResult {
  /** curl's exit status: 0 done, 28 timed out, 35/56 reset during or after the handshake. */
  code: number | null;
  status: number;
  size: number;
}

/** curl -k from `host` for https://<name><urlPath>, the name resolved to `address`. */
export function curlFrom(
  net: TestNetwork,
  host: string,
  name: string,
  address: string,
  urlPath = '/',
  maxSeconds = 4,
): CurlResult {
  const r = inHost(net, host, [
    'curl',
    '-k',
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code} %{size_download}',
    '--max-time',
    String(maxSeconds),
    '--resolve',
    `${name}:443:${address}`,
    `https://${name}${urlPath}`,
  ]);
  const [status, size] = (r.stdout || '0 0').split(' ').map(Number);
  return { code: r.status, status: status ?? 0, size: size ?? 0 };
}

/** `openssl s_client` from `host` to address:443 with SNI `name`: whether the handshake ended. */
export function opensslHandshake(
  net: TestNetwork,
  host: string,
  name: string,
  address: string,
): boolean {
  const r = inHost(
    net,
    host,
    ['timeout', '5', 'openssl', 's_client', '-connect', `${address}:443`, '-servername', name],
    '',
  );
  return r.status === 0 && /Verify return code/.test(r.stdout);
}

/** Node's TLS from `host` to address:443 with SNI `name`: 'handshake' or the error code. */
export function nodeHandshake(
  net: TestNetwork,
  host: string,
  name: string,
  address: string,
): string {
  const script = `
    const s = require('node:tls').connect({ host: '${address}', port: 443, servername: '${name}', rejectUnauthorized: false });
    s.on('secureConnect', () => { process.stdout.write('handshake'); s.destroy(); });
    s.on('error', (e) => process.stdout.write(e.code || 'error'));
    setTimeout(() => { process.stdout.write('timeout'); process.exit(0); }, 4000).unref();`;
  return net.exec(host, [process.execPath, '-e', script]);
}

/** Sends `datagrams` from `host` to address:port over UDP (one socket); resolves when sent. */
export function sendUdp(
  net: TestNetwork,
  host: string,
  address: string,
  port: number,
  datagrams: Buffer[],
): void {
  const script = `
    const s = require('node:dgram').createSocket('udp4');
    const all = ${JSON.stringify(datagrams.map((d) => d.toString('hex')))};
    let n = 0;
    for (const h of all) s.send(Buffer.from(h, 'hex'), ${port}, '${address}', () => { if (++n === all.length) s.close(); });`;
  net.exec(host, [process.execPath, '-e', script]);
}

/** A UDP server that counts the datagrams it receives (read with `received()`). */
export function startUdpCounter(
  net: TestNetwork,
  host: string,
  port: number,
): { received(): number } {
  const proc = net.spawn(host, `udp-counter-${port}`, [
    process.execPath,
    '-e',
    `require('node:dgram').createSocket('udp4').on('message', () => console.log('got')).bind(${port}, '0.0.0.0', () => console.log('bound'));`,
  ]);
  return {
    received: () =>
      proc
        .output()
        .split('\n')
        .filter((l) => l === 'got').length,
  };
}

/** A minimal ClientHello handshake message naming `name`. */
export function helloMessage(name: string, padTo = 0): Buffer {
  const sniName = Buffer.from(name);
  const sniList = Buffer.concat([Buffer.from([0, sniName.length >> 8, sniName.length]), sniName]);
  const sni = Buffer.concat([
    Buffer.from([0, 0, 0, sniList.length + 2, 0, sniList.length]),
    sniList,
  ]);
  const pad = padTo
    ? Buffer.concat([Buffer.from([0, 0x15, padTo >> 8, padTo & 0xff]), Buffer.alloc(padTo)])
    : Buffer.alloc(0);
  const exts = Buffer.concat([sni, pad]);
  const body = Buffer.concat([
    Buffer.from([3, 3]),
    randomBytes(32),
    Buffer.from([0, 0, 2, 0x13, 0x01, 1, 0, exts.length >> 8, exts.length & 0xff]),
    exts,
  ]);
  return Buffer.concat([Buffer.from([1, 0, body.length >> 8, body.length & 0xff]), body]);
}
