// What every implementation of the probes' datagram seam must do, as vitest cases: the unit tests
// run them on the fake (datagrams.fake.test.ts) and on the real marked sockets over loopback
// (datagrams.test.ts), so that the probes' tests on the fake hold for the real thing.
import { createHmac, randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';

import {
  encodeProbeRequest,
  openProbeReply,
  type HmacSha256,
} from '../../platform/probes/latency-probe.js';
import type { Datagrams } from './datagrams.js';

const hmac: HmacSha256 = (k, m) => createHmac('sha256', k).update(m).digest();

/** A probe responder on the implementation's network. */
export interface ContractResponder {
  address: string;
  port: number;
  key: Uint8Array;
  /** Valid probes it got. */
  received(): number;
}

export interface DatagramsUnderTest {
  datagrams: Datagrams;
  responder(): Promise<ContractResponder>;
  /** An address and port of the family where nothing answers. */
  silentPeer(): Promise<{ address: string; port: number }>;
}

const quiet = () => new Promise((r) => setTimeout(r, 50));

export function datagramsContract(make: () => DatagramsUnderTest): void {
  it('sends datagrams to the connected peer and hears its answers', async () => {
    const t = make();
    const peer = await t.responder();
    const socket = t.datagrams.open(4);
    const heard: string[] = [];
    socket.onMessage((d) => {
      const nonce = openProbeReply(d, peer.key, hmac);
      if (nonce) heard.push(Buffer.from(nonce).toString('hex'));
    });
    await socket.connect(peer.address, peer.port);
    const nonces = [randomBytes(16), randomBytes(16)];
    for (const n of nonces) socket.send(encodeProbeRequest(peer.key, n, Date.now(), hmac));
    await expect.poll(() => heard.length).toBe(2);
    expect(heard.sort()).toEqual(nonces.map((n) => n.toString('hex')).sort());
    expect(peer.received()).toBe(2);
    socket.close();
  });

  it('hears nothing after close, and closes twice without a word', async () => {
    const t = make();
    const peer = await t.responder();
    const socket = t.datagrams.open(4);
    let heard = 0;
    socket.onMessage(() => (heard += 1));
    await socket.connect(peer.address, peer.port);
    socket.send(encodeProbeRequest(peer.key, randomBytes(16), Date.now(), hmac));
    socket.close();
    socket.close();
    socket.send(encodeProbeRequest(peer.key, randomBytes(16), Date.now(), hmac));
    await quiet();
    expect(heard).toBe(0);
  });

  it('takes datagrams to a peer where nothing answers, and hears nothing', async () => {
    const t = make();
    const silent = await t.silentPeer();
    const socket = t.datagrams.open(4);
    let heard = 0;
    socket.onMessage(() => (heard += 1));
    await socket.connect(silent.address, silent.port);
    socket.send(encodeProbeRequest(randomBytes(32), randomBytes(16), Date.now(), hmac));
    socket.send(encodeProbeRequest(randomBytes(32), randomBytes(16), Date.now(), hmac));
    await quiet();
    expect(heard).toBe(0);
    socket.close();
  });
}
