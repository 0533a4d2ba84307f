// The probes' real datagrams on loopback (root, as the engine runs): they keep the seam's
// contract against a stand-in responder on a real socket, carry the tunnel sockets' mark (the
// kill switch lets probes out by it), and are never made unmarked.
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';

import {
  encodeProbeReply,
  encodeProbeRequest,
  openProbeRequest,
  type HmacSha256,
} from '../../platform/probes/latency-probe.js';
import { datagramsContract, type ContractResponder } from './datagrams.contract.js';
import { markedDatagrams } from './datagrams.js';

const hmac: HmacSha256 = (k, m) => createHmac('sha256', k).update(m).digest();

const sockets: dgram.Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

async function bound(onMessage?: (msg: Buffer, from: dgram.RemoteInfo) => void) {
  const socket = dgram.createSocket('udp4');
  sockets.push(socket);
  if (onMessage) socket.on('message', onMessage);
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  return socket;
}

/** A responder on loopback; with `marks`, the mark of each probe's socket (ss -e). */
async function responder(marks?: (string | undefined)[]): Promise<ContractResponder> {
  const key = randomBytes(32);
  let received = 0;
  const socket = await bound((msg, from) => {
    const req = openProbeRequest(msg, key, hmac);
    if (!req) return;
    received++;
    if (marks) {
      const ss = execFileSync('ss', ['-uane', `sport = :${from.port}`], { encoding: 'utf8' });
      marks.push(/fwmark:(0x[0-9a-f]+)/.exec(ss)?.[1]);
    }
    socket.send(encodeProbeReply(key, req.nonce, hmac), from.port, from.address);
  });
  return { address: '127.0.0.1', port: socket.address().port, key, received: () => received };
}

describe('markedDatagrams', () => {
  datagramsContract(() => ({
    datagrams: markedDatagrams(),
    responder: () => responder(),
    async silentPeer() {
      // A port bound and then closed: the kernel answers with port unreachable, quietly taken.
      const socket = await bound();
      const port = socket.address().port;
      sockets.splice(sockets.indexOf(socket), 1);
      socket.close();
      return { address: '127.0.0.1', port };
    },
  }));

  it('sends from a socket with the tunnel sockets’ mark (around the tunnel; the kill switch lets probes out by it)', async () => {
    const marks: (string | undefined)[] = [];
    const peer = await responder(marks);
    const socket = markedDatagrams().open(4);
    let heard = 0;
    socket.onMessage(() => (heard += 1));
    await socket.connect(peer.address, peer.port);
    socket.send(encodeProbeRequest(peer.key, randomBytes(16), Date.now(), hmac));
    socket.send(encodeProbeRequest(peer.key, randomBytes(16), Date.now(), hmac));
    await expect.poll(() => heard).toBe(2);
    socket.close();
    expect(marks).toEqual(['0x6665', '0x6665']);
  });

  it('fails, making no socket, when it cannot be marked', () => {
    const cannot = () => {
      throw new Error('cannot set the socket mark: Operation not permitted');
    };
    expect(() => markedDatagrams(cannot).open(4)).toThrow(/socket mark/);
  });
});
