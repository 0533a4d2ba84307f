// A control plane that answers without end, against the real `netcli daemon` in a namespace: a
// stand-in on the laptop's loopback streams a gigabyte as fast as the daemon reads, or announces
// 8 GiB and trickles. The daemon refuses each answer with a clear error once it is past the cap
// (the announced one at once), hangs up, stays small, answers status meanwhile and after, and
// stops on SIGTERM.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetcliHost } from './netcli-host.js';
import { startStandInControlPlane } from './stand-in-control-plane.js';
import type { ManagedProcess } from './test-network.js';
import { Testbed } from './testbed.js';

const PORT = 8080;
const MiB = 1024 * 1024;

/**
 * The stand-in: GET /health answers as the control plane does; POST /accounts streams 1 GiB of
 * junk as fast as the reader takes it; POST /sessions announces 8 GiB and sends 64 KiB every
 * 100 ms. Each answer's end is a JSON line: how many bytes the reader took before it hung up.
 */
const FLOOD_SERVER = `
const http = require('node:http');
const GiB = 1024 ** 3;
const chunk = Buffer.alloc(64 * 1024, 'x');
http.createServer((req, res) => {
  req.resume();
  const path = new URL(req.url, 'http://stand-in').pathname;
  if (path.endsWith('/health')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ status: 'ok', version: '0.1.0', api: 'v1' }));
  }
  const trickle = path.endsWith('/sessions');
  res.writeHead(200, {
    'content-type': 'application/json',
    ...(trickle ? { 'content-length': String(8 * GiB) } : {}),
  });
  let written = 0;
  let timer;
  res.on('close', () => {
    clearTimeout(timer);
    console.log(JSON.stringify({ event: res.writableFinished ? 'finished' : 'hung-up', path, written }));
  });
  const pump = () => {
    if (res.destroyed) return;
    if (trickle) {
      written += chunk.length;
      res.write(chunk);
      timer = setTimeout(pump, 100);
      return;
    }
    while (written < GiB) {
      written += chunk.length;
      if (!res.write(chunk)) return res.once('drain', pump);
    }
    res.end();
  };
  pump();
}).listen(${PORT}, '127.0.0.1', () => console.log(JSON.stringify({ event: 'listening' })));
`;

interface Ended {
  event: 'finished' | 'hung-up';
  path: string;
  written: number;
}

describe('a control plane whose answers never end', () => {
  let bed: Testbed;
  let laptop: NetcliHost;
  let flood: ManagedProcess;

  /** How the stand-in's answer to `path` ended, once it has. */
  const endOf = (path: string) =>
    bed.net.waitFor(`the stand-in's answer to ${path} to end`, 20_000, () =>
      flood
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Ended | { event: 'listening' })
        .find((e): e is Ended => e.event !== 'listening' && e.path.endsWith(path)),
    );

  /** The daemon's peak resident memory (VmHWM), in bytes. */
  const peakMemory = () => {
    const status = readFileSync(`/proc/${laptop.daemon!.child.pid}/status`, 'utf8');
    return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
  };

  beforeAll(async () => {
    bed = await Testbed.start();
    try {
      laptop = await NetcliHost.start(bed, 'laptop');
      flood = await startStandInControlPlane(bed, laptop, FLOOD_SERVER, PORT);
    } catch (e) {
      await bed.stop();
      throw e;
    }
  }, 120_000);

  afterAll(async () => {
    await flood?.stop();
    await laptop?.stop();
    await bed?.stop();
  }, 60_000);

  it('refuses a gigabyte answer once it is past 4 MiB, hangs up, and stays small', async () => {
    const before = peakMemory();
    const created = laptop.run('account', 'create');
    expect(created.code).toBe(1);
    expect(created.stderr).toMatch(
      /^netcli: the server's answer is larger than 4 MiB, the most read of one answer to POST \/accounts\n/,
    );
    const ended = await endOf('/accounts');
    expect(ended.event).toBe('hung-up');
    // What the stand-in got to write: the cap, what the sockets hold, far from the gigabyte.
    expect(ended.written).toBeLessThan(32 * MiB);
    expect(peakMemory() - before).toBeLessThan(128 * MiB);
    expect(laptop.json('status')).toMatchObject({ status: 'disconnected' });
  }, 60_000);

  it('refuses an answer that announces 8 GiB at once, answering status meanwhile', async () => {
    const login = laptop.runAsync('login', '1234567890123456');
    // The engine answers while the sign-in waits on the stand-in.
    expect(laptop.json('status')).toMatchObject({ status: 'disconnected' });
    const refused = await login;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "netcli: the server's answer is larger than 4 MiB, the most read of one answer to POST /sessions\n",
    );
    const ended = await endOf('/sessions');
    expect(ended.event).toBe('hung-up');
    // At 64 KiB per 100 ms, 4 MiB would have taken 6 s: the daemon read at most a few pieces.
    expect(ended.written).toBeLessThan(MiB);
  }, 60_000);

  it('stops on SIGTERM', async () => {
    const stopping = laptop.daemon!.stop();
    // stop() kills after 5 s: a daemon deaf to SIGTERM would end by SIGKILL, without a code.
    expect(await stopping).toBe(0);
  }, 30_000);
});
