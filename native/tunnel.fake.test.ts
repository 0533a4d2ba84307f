// Tests that the fake data plane behaves like the real one where callers can tell: events, close, names.
import { describe, expect, it } from 'vitest';

import { NativeTunnelError, type TunnelEvent } from './tunnel-types.js';
import { FakeDataPlane } from './tunnel.fake.js';

function client(plane: FakeDataPlane, name = 'ferryfake0') {
  return {
    interfaceName: name,
    address: '10.99.0.2/24',
    privateKey: plane.generatePrivateKey(),
    serverHost: '127.0.0.1',
    serverPort: 51820,
    serverPublicKey: plane.publicKey(plane.generatePrivateKey()),
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('FakeDataPlane', () => {
  it('reports connecting, then scripted events, then closed exactly once', async () => {
    const plane = new FakeDataPlane();
    const events: TunnelEvent[] = [];
    const t = plane.startClient(client(plane), (e) => events.push(e));
    plane.tunnels[0]!.emit({ type: 'rtt', rttMs: 12.5 });
    t.close();
    t.close();
    plane.tunnels[0]!.emit({ type: 'rtt', rttMs: 1 });
    await tick();
    expect(events.map((e) => e.type)).toEqual(['state', 'rtt', 'state']);
    expect(events[0]).toMatchObject({ type: 'state', state: 'connecting', eventDrops: 0 });
    expect(events[2]).toMatchObject({ type: 'state', state: 'closed' });
  });

  it('refuses a second live interface with the same name, like the kernel', () => {
    const plane = new FakeDataPlane();
    const a = plane.startClient(client(plane), () => undefined);
    expect(() => plane.startClient(client(plane), () => undefined)).toThrow(NativeTunnelError);
    a.close();
    expect(() => plane.startClient(client(plane), () => undefined).close()).not.toThrow();
  });

  it('exposes counters set by the test', () => {
    const plane = new FakeDataPlane();
    const t = plane.startClient(client(plane), () => undefined);
    plane.tunnels[0]!.setCounters({ rxPackets: 3 });
    expect(t.counters()).toMatchObject({ rxPackets: 3, txPackets: 0 });
  });

  it('lets servers, not clients, replace their peers, with the same validation', () => {
    const plane = new FakeDataPlane();
    const peer = { publicKey: plane.publicKey(plane.generatePrivateKey()), address: '10.99.0.2' };
    const server = plane.startServer(
      {
        interfaceName: 'ferryfake1',
        address: '10.99.0.1/24',
        privateKey: plane.generatePrivateKey(),
        listenHost: '127.0.0.1',
        listenPort: 51820,
        peers: [],
      },
      () => undefined,
    );
    server.setPeers([peer]);
    expect(plane.tunnels[0]!.peerUpdates).toEqual([[peer]]);
    expect(() => server.setPeers([peer, peer])).toThrow(NativeTunnelError);
    plane.startClient(client(plane), () => undefined);
    expect(() => plane.tunnels[1]!.setPeers([peer])).toThrow(/only a server/);
  });
});
