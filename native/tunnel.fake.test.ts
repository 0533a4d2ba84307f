// Tests that the fake data plane behaves like the real one where callers can tell: events, close, names.
import { describe, expect, it } from 'vitest';

import { loadHelloTemplate } from './hello-template.js';
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

  it('reports connection attempts as the native client does: over tcp or tls only', async () => {
    const plane = new FakeDataPlane();
    const events: TunnelEvent[] = [];
    const hello = loadHelloTemplate();
    plane.startClient(
      { ...client(plane), transport: 'tls', tls: { serverName: 'www.example.com', hello } },
      (e) => events.push(e),
    );
    plane.tunnels[0]!.attemptOutcome('reset');
    plane.startClient({ ...client(plane, 'ferryfake1'), transport: 'tcp' }, (e) => events.push(e));
    plane.tunnels[1]!.attemptOutcome('answered');
    await tick();
    expect(events.filter((e) => e.type === 'transport')).toEqual([
      { type: 'transport', transport: 'tls', outcome: 'reset', eventDrops: 0 },
      { type: 'transport', transport: 'tcp', outcome: 'answered', eventDrops: 0 },
    ]);
    plane.startClient(client(plane, 'ferryfake2'), () => undefined);
    expect(() => plane.tunnels[2]!.attemptOutcome('silent')).toThrow(/tcp or tls/);
  });

  it('exposes counters set by the test', () => {
    const plane = new FakeDataPlane();
    const t = plane.startClient(client(plane), () => undefined);
    plane.tunnels[0]!.setCounters({ rxPackets: 3 });
    expect(t.counters()).toMatchObject({ rxPackets: 3, txPackets: 0 });
  });

  it('lets servers, not clients, change their peers, with the same rules as the native registry', () => {
    const plane = new FakeDataPlane();
    const key = () => plane.publicKey(plane.generatePrivateKey());
    const a = { id: 'dev_a', publicKey: key(), address: '10.99.0.2' };
    const b = { id: 'dev_b', publicKey: key(), address: '10.99.0.3' };
    const server = plane.startServer(
      {
        interfaceName: 'ferryfake1',
        address: '10.99.0.1/24',
        privateKey: plane.generatePrivateKey(),
        listenHost: '127.0.0.1',
        listenPort: 51820,
        peers: [a],
      },
      () => undefined,
    );
    const fake = plane.tunnels[0]!;
    // b takes a's address: refused on its own, while the removal in the same change applies.
    expect(
      server.updatePeers({ upsert: [{ ...b, address: a.address }], remove: ['dev_gone'] }),
    ).toEqual({ rejected: [{ id: 'dev_b', reason: 'address in use by another peer' }] });
    expect(server.updatePeers({ upsert: [b, { ...a, publicKey: 'bad' }] }).rejected).toEqual([
      { id: 'dev_a', reason: 'peer publicKey must be a base64 32-byte key' },
    ]);
    // Fail closed: the refused upsert of dev_a took its earlier entry away too.
    expect([...fake.peers.keys()]).toEqual(['dev_b']);
    // setPeers removes whatever is not listed, even when the listed entries are refused.
    server.updatePeers({ upsert: [a] });
    expect(server.setPeers([{ ...b, address: 'x' }]).rejected).toHaveLength(1);
    expect([...fake.peers.keys()]).toEqual([]);
    server.updatePeers({ upsert: [a] });
    fake.failNextUpdate = new Error('boom');
    expect(() => server.updatePeers({ upsert: [b], remove: ['dev_a'] })).toThrow('boom');
    expect(fake.peers.has('dev_a')).toBe(false);
    plane.startClient(client(plane), () => undefined);
    expect(() => plane.tunnels[1]!.setPeers([a])).toThrow(/only a server/);
  });

  it('validates the TLS options as the native side does, and hands strangers to onStranger', () => {
    const plane = new FakeDataPlane();
    const hello = loadHelloTemplate();
    expect(() =>
      plane.startClient({ ...client(plane), transport: 'tls' }, () => undefined),
    ).toThrow(/tls option goes with transport tls/);
    expect(() =>
      plane.startClient(
        { ...client(plane), transport: 'tls', tls: { serverName: '192.0.2.1', hello } },
        () => undefined,
      ),
    ).toThrow(/DNS name/);
    plane
      .startClient(
        { ...client(plane), transport: 'tls', tls: { serverName: 'www.example.com', hello } },
        () => undefined,
      )
      .close();
    const got: [number, string][] = [];
    const server = {
      interfaceName: 'ferryfakes0',
      address: '10.99.0.1/24',
      privateKey: plane.generatePrivateKey(),
      listenHost: '127.0.0.1',
      listenPort: 51820,
      peers: [],
    };
    expect(() => plane.startServer({ ...server, tlsListenPort: 443 }, () => undefined)).toThrow(
      /go together/,
    );
    const s = plane.startServer(
      {
        ...server,
        tlsListenHost: '127.0.0.1',
        tlsListenPort: 443,
        onStranger: (fd, head) => got.push([fd, head.toString()]),
      },
      () => undefined,
    );
    expect(plane.tunnels.at(-1)!.handOverStranger(7, Buffer.from('GET /'))).toBe(true);
    expect(got).toEqual([[7, 'GET /']]);
    s.close();
  });
});
