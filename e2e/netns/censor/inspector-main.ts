// The censor's inspector process, started by censor.ts in the router's namespace: it runs the
// NFQUEUE shim (argv[2]) as its child, answers each queued packet with the Inspector's verdict,
// runs the prober, and writes what the censor did to stdout as JSON lines (CensorEvent, and
// {"kind":"ready"} once the queue is bound). Exits when its stdin closes (the test is gone).
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

import { Inspector, type CensorEvent } from './inspector.js';
import { CENSOR_TABLE } from './nft-ruleset.js';
import { Prober } from './prober.js';
import type { Settings } from './profiles.js';

const run = promisify(execFile);
const [shimPath, settingsJson] = process.argv.slice(2);
const s = JSON.parse(settingsJson!) as Settings;

function emit(e: CensorEvent | { kind: 'ready' }): void {
  process.stdout.write(`${JSON.stringify(e)}\n`);
}

const prober = new Prober(s, {
  event: emit,
  block: async (server, port) => {
    await run('nft', [
      'add',
      'element',
      'inet',
      CENSOR_TABLE,
      'probe_block',
      `{ ${server} . ${port} }`,
    ]);
  },
});
// The prober starts after the verdicts of this batch are written: its sockets and handshakes take
// milliseconds, long enough for a client to retransmit a packet whose verdict waits.
const inspector = new Inspector(s, {
  event: emit,
  endpoint: (ep) => setImmediate(() => prober.consider(ep)),
});

const shim = spawn(shimPath!, [String(s.queue)], { stdio: ['pipe', 'pipe', 'inherit'] });
shim.on('exit', (code) => {
  emit({ kind: 'error', message: `the queue shim exited (${code})` });
  process.exit(1);
});

function verdictFrame(id: number, accept: boolean, mark: number, data?: Buffer): Buffer {
  const head = Buffer.alloc(16);
  head.writeUInt32BE(id, 0);
  head.writeUInt32BE(accept ? 1 : 0, 4);
  head.writeUInt32BE(mark >>> 0, 8);
  head.writeUInt32BE(data?.length ?? 0, 12);
  return data ? Buffer.concat([head, data]) : head;
}

let pending: Buffer = Buffer.alloc(0);
shim.stdout.on('data', (d: Buffer) => {
  pending = pending.length ? Buffer.concat([pending, d]) : d;
  const out: Buffer[] = [];
  let off = 0;
  while (pending.length - off >= 8) {
    const id = pending.readUInt32BE(off);
    const len = pending.readUInt32BE(off + 4);
    if (pending.length - off - 8 < len) break;
    const packet = pending.subarray(off + 8, off + 8 + len);
    off += 8 + len;
    if (id === 0) {
      emit({ kind: 'ready' });
      continue;
    }
    try {
      const v = inspector.handle(packet);
      out.push(verdictFrame(id, v.accept, v.mark, v.replacement));
    } catch (e) {
      emit({ kind: 'error', message: (e as Error).stack ?? String(e) });
      out.push(verdictFrame(id, true, 0));
    }
  }
  pending = pending.subarray(off);
  if (out.length) shim.stdin.write(Buffer.concat(out));
});

const quit = () => {
  shim.removeAllListeners('exit');
  shim.kill('SIGTERM');
  process.exit(0);
};
process.stdin.on('end', quit);
process.stdin.resume();
process.on('SIGTERM', quit);
