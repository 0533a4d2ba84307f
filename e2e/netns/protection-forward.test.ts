// The kill switch and the traffic the laptop forwards for others (a container, a VM): a flow
// that began before the connect is "established" in conntrack, and must still get no packet out
// of eth0 while the kill switch holds (here in the error state a failed connect leaves).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePacket } from './leak-watch.js';
import { readPcapIp } from './pcap.js';
import { ProtectionBed } from './protection-kit.js';

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('protection: forwarded flows', () => {
  let p: ProtectionBed;
  const json = (...args: string[]) => p.laptop.json(...args);

  beforeAll(async () => {
    p = await ProtectionBed.start();
    p.setUp();
  }, 180_000);
  afterAll(async () => {
    await p?.stop();
  }, 60_000);

  for (const allowLan of [false, true])
    it(`a container’s ping begun before connect gets no packet out of eth0 while the kill switch holds${allowLan ? ', with allow_lan (the container’s subnet is LAN too)' : ''}`, async () => {
      json('config', 'set', 'allow_lan', String(allowLan));
      await cutWhileBlocking(allowLan ? 'vm' : 'container');
    }, 120_000);

  async function cutWhileBlocking(name: string): Promise<void> {
    const net = p.bed.net;
    const container = p.addContainer(name);
    const abroad = p.foreign.targets.ping;
    const file = path.join(net.dir, 'forward.pcap');
    const stopCapture = await net.capture('laptop', 'eth0', `icmp and host ${abroad}`, file, {
      maxSeconds: 120,
    });
    const ping = net.spawn(container.host, 'container-ping', ['ping', '-n', '-i', '0.2', abroad]);
    let since = Infinity;
    try {
      // The flow is under way before the connect: its echoes are answered.
      await net.waitFor('the container’s ping to be answered', 10_000, () =>
        (ping.output().match(/bytes from/g)?.length ?? 0) >= 3 ? true : undefined,
      );
      for (const r of p.relays) net.blackhole(r.host);
      const attempt = p.laptop.runAsync('connect', '--region', 'work');
      since = await p.killSwitchActive();
      expect((await attempt).code).not.toBe(0);
      expect(json('status')).toMatchObject({
        status: 'error',
        protection: { kill_switch: 'active' },
      });
      // The ping goes on meanwhile, five echoes a second.
      await settle(3_000);
    } finally {
      await ping.stop();
      await stopCapture();
      await p.heal();
    }
    const before = readPcapIp(file).filter((x) => x.time * 1000 < since);
    const during = readPcapIp(file).filter((x) => x.time * 1000 >= since);
    // The capture saw the flow leave before the kill switch, and nothing of it since.
    expect(before.length).toBeGreaterThan(0);
    expect(during.map(describePacket)).toEqual([]);
    p.laptop.human('disconnect');
    container.remove();
    expect(p.laptop.leftovers()).toEqual([]);
  }
});
