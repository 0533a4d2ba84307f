// What the censor's namespace tests do from either side of the border: small TCP servers on a
// host (echo, swallow), one TCP exchange from a host (what came back and how it ended), one UDP
// exchange, and a first packet that Wu et al.'s detector flags.
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

/** Connects from `host` to address:port, writes `data`, and reports what happened. */
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
    s.on('data', (d) => { r.bytes += d.length; if (r.text.length < 200) r.text += d.toString('latin1'); });
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
