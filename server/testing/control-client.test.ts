// The typed control client against the real control plane: every route of the table is called
// through it (in process, over app.inject; the event stream over a socket) and its answer
// parses, and the server's refusals reach the caller as ApiErrors with their code and fields.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  controlRoutes,
  createControlClient,
  type RouteId,
} from '../../contracts/index.js';
import {
  ADMIN_TOKEN,
  backends,
  newPublicKey,
  startControlPlane,
  type Harness,
} from './control-plane-harness.js';

describe.each(backends())('the typed control client on %s', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startControlPlane(backend);
  });
  afterAll(async () => h?.close());

  it('calls every route of the table, and each answer parses', async () => {
    const called = new Set<RouteId>();
    /** Records that a route was called: a route added to the table without a call here fails. */
    const route = <T>(id: RouteId, call: Promise<T>): Promise<T> => {
      called.add(id);
      return call;
    };
    const anyone = h.client();
    const admin = h.client(ADMIN_TOKEN);

    expect(await route('health', anyone.health())).toMatchObject({ status: 'ok', api: 'v1' });
    expect(await route('whoami', anyone.whoami())).toEqual({ ip: '127.0.0.1' });
    expect(await route('diagnostics', anyone.diagnostics())).toEqual({
      dns_leak_zone: null,
      ipv6_probe: null,
    });
    const relays = await route('relayList', anyone.relayList());
    expect(relays.public_key).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    const { plans } = await route('listPlans', anyone.listPlans());
    expect(plans.map((p) => p.id)).toEqual(expect.arrayContaining(['basic', 'premium']));

    const { account_number } = await route('createAccount', anyone.createAccount({ body: {} }));
    expect(
      await route(
        'adminSetPlan',
        admin.adminSetPlan({ params: { number: account_number }, body: { plan: 'Premium' } }),
      ),
    ).toEqual({ account_number, plan: 'premium' });
    const signIn = (name: string, kind: string) =>
      route(
        'createSession',
        anyone.createSession({
          body: {
            account_number,
            device: {
              name,
              kind,
              wireguard_public_key: newPublicKey(),
              ferry_public_key: newPublicKey(),
            },
          },
        }),
      );
    const phone = await signIn('phone', 'phone');
    const laptop = await signIn('laptop', 'LAPTOP');
    expect(laptop.device.kind).toBe('laptop');
    const asLaptop = h.client(laptop.token);

    expect((await route('getAccount', asLaptop.getAccount())).devices).toMatchObject({ used: 2 });
    const { devices } = await route('listDevices', asLaptop.listDevices());
    expect(devices.filter((d) => d.current).map((d) => d.id)).toEqual([laptop.device.id]);
    const id = phone.device.id;
    expect(await route('getDevice', asLaptop.getDevice({ params: { id } }))).toMatchObject({
      id,
      current: false,
    });
    expect(
      await route('renameDevice', asLaptop.renameDevice({ params: { id }, body: { name: 'p2' } })),
    ).toMatchObject({ id, name: 'p2' });
    const key = newPublicKey();
    expect(
      await route(
        'rotateKeys',
        asLaptop.rotateKeys({ params: { id }, body: { wireguard_public_key: key } }),
      ),
    ).toMatchObject({ id, wireguard_public_key: key });

    const region = { id: 'af-south', name: 'Africa South', area: 'africa', country: 'za' };
    expect(await route('adminCreateRegion', admin.adminCreateRegion({ body: region }))).toEqual({
      ...region,
      country: 'ZA',
      entry: false,
    });
    expect(
      await route(
        'adminUpdateRegion',
        admin.adminUpdateRegion({ params: { id: 'af-south' }, body: { entry: true } }),
      ),
    ).toMatchObject({ id: 'af-south', entry: true });
    const node = await route(
      'adminCreateNode',
      admin.adminCreateNode({
        body: {
          region: 'global',
          endpoint_host: '192.0.2.20',
          wireguard_port: 51820,
          ferry_port: 51821,
          capacity_mbps: 1_000,
        },
      }),
    );
    const asNode = h.client(node.token);
    expect(
      await route(
        'nodeRegister',
        asNode.nodeRegister({
          body: { wireguard_public_key: newPublicKey(), ferry_public_key: newPublicKey() },
        }),
      ),
    ).toMatchObject({ id: node.id, region: 'global' });
    await route(
      'nodeHeartbeat',
      asNode.nodeHeartbeat({ body: { load: 0.1, rx_bps: 0, tx_bps: 0 } }),
    );
    expect(
      await route('adminCheckPlatforms', admin.adminCheckPlatforms({ params: { id: node.id } })),
    ).toMatchObject({ node_id: node.id, requested: true });
    const checked = Math.floor(Date.now() / 1000);
    const answer = await asNode.nodeHeartbeat({
      body: {
        load: 0.1,
        rx_bps: 0,
        tx_bps: 0,
        platforms: [
          {
            platform: 'netflix',
            reachable: true,
            region: 'CH',
            verdict: 'ok',
            checked_at: checked,
          },
        ],
      },
    });
    expect(answer.check_platforms).toBe(true);
    const feed = await route('nodePeers', asNode.nodePeers({ query: { after: 0, wait: 0 } }));
    expect(feed.snapshot).toBe(true);
    expect(feed.peers.map((p) => p.device_id)).toEqual(
      expect.arrayContaining([laptop.device.id, id]),
    );

    const { regions } = await route('listRegions', asLaptop.listRegions());
    expect(regions.map((r) => r.id)).toContain('af-south');
    const { nodes } = await route('listNodes', asLaptop.listNodes({ query: { region: 'global' } }));
    expect(nodes.find((n) => n.id === node.id)).toMatchObject({
      healthy: true,
      platforms: [{ platform: 'netflix', verified: true, verdict: 'ok', region: 'CH' }],
    });
    expect(regions.find((r) => r.id === 'global')?.platforms_verified).toEqual(['netflix']);

    const tunnel = await route(
      'createTunnel',
      asLaptop.createTunnel({
        params: { id: laptop.device.id },
        body: {
          tag: 'Work',
          wireguard_public_key: newPublicKey(),
          ferry_public_key: newPublicKey(),
        },
      }),
    );
    expect(tunnel).toMatchObject({ tag: 'work', device_id: laptop.device.id });
    expect(
      await route('listTunnels', asLaptop.listTunnels({ params: { id: laptop.device.id } })),
    ).toEqual({ tunnels: [tunnel] });
    const tunnelSession = await route(
      'connect',
      asLaptop.connect({ body: { region: 'global', tunnel: 'work' } }),
    );
    expect(tunnelSession.tunnel.ipv4).toBe(tunnel.tunnel_ipv4);
    await route(
      'deleteTunnel',
      asLaptop.deleteTunnel({ params: { id: laptop.device.id, tag: 'work' } }),
    );

    const streaming = await asLaptop.connect({ body: { platform: 'Netflix', region: 'global' } });
    expect(streaming).toMatchObject({ usage: 'streaming', mode: 'stream', node: { id: node.id } });
    const session = await route(
      'connect',
      asLaptop.connect({ body: { protocol: 'WireGuard', region: 'global' } }),
    );
    expect(session).toMatchObject({ protocol: 'wireguard', node: { id: node.id } });
    expect(await route('status', asLaptop.status())).toMatchObject({
      status: 'connecting',
      session_id: session.session_id,
    });
    expect(
      await route(
        'reportLatency',
        asLaptop.reportLatency({ body: { latency_ms: 21.6, session_id: session.session_id } }),
      ),
    ).toMatchObject({ session_id: session.session_id, latency: '22ms' });
    const config = await route(
      'wireguardConfig',
      asLaptop.wireguardConfig({ params: { id }, body: { region: 'global' } }),
    );
    expect(config).toMatchObject({ node_id: node.id });
    expect(config.config).toContain('[Peer]');
    expect(await route('deviceStatus', asLaptop.deviceStatus({ params: { id } }))).toMatchObject({
      status: 'connecting',
      session_id: config.session_id,
    });
    const tablet = await route(
      'addDevice',
      asLaptop.addDevice({
        body: {
          name: 'tablet',
          kind: 'Tablet',
          wireguard_public_key: newPublicKey(),
          ferry_public_key: newPublicKey(),
        },
      }),
    );
    expect(tablet).toMatchObject({ name: 'tablet', kind: 'tablet', current: false });
    expect(await route('disconnect', asLaptop.disconnect())).toEqual({ status: 'disconnected' });

    // The stream needs a socket: app.inject answers only once a response has ended.
    await h.plane.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (h.plane.app.server.address() as AddressInfo).port;
    const overSocket = createControlClient({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      fetch,
      token: () => phone.token,
    });
    const stream = await route('events', overSocket.events());
    const seen: string[] = [];
    for await (const e of stream) {
      if (e.event === 'status') seen.push(`status:${e.data.status}`);
      else if (e.event === 'revoked') seen.push(`revoked:${e.data.device_id}`);
      else seen.push(`keys:${e.data.id}`);
      // Revoked, the phone's stream says so and ends.
      if (seen.length === 1) await route('revokeDevice', asLaptop.revokeDevice({ params: { id } }));
    }
    // The phone's configuration started a session for it: connecting.
    expect(seen).toEqual(['status:connecting', `revoked:${id}`]);

    expect([...called].sort()).toEqual(Object.keys(controlRoutes).sort());
  });

  it("turns the server's refusals into ApiErrors with their code, status and fields", async () => {
    const anyone = h.client();
    const noToken = await anyone.status().catch((e: unknown) => e);
    expect(noToken).toBeInstanceOf(ApiError);
    expect(noToken).toMatchObject({ status: 401, code: 'unauthorized' });

    const device = await h.signIn(await h.createAccount());
    const client = h.client(device.token);
    const invalid = await client
      .connect({ body: { protocol: 'ipsec', usage: 'streaming' } })
      .catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, code: 'validation-failed' });
    expect((invalid as ApiError).errors).toEqual([
      expect.objectContaining({ field: 'protocol', allowed: ['wireguard', 'ferry'] }),
    ]);
    expect(
      await client.getDevice({ params: { id: 'dev_nobody' } }).catch((e: unknown) => e),
    ).toMatchObject({ status: 404, code: 'not-found', route: 'GET /devices/:id' });
  });
});
