// Entry regions (multihop's first hop): an operator offers a region's relays as entries when it
// adds the region or later (PATCH /admin/regions/:id), and GET /regions says which regions do.
// Only the admin changes regions; a change of nothing, or of a region that does not exist, is
// refused with what to do. A connect with entry_region gets the exit as usual and an entry relay
// whose ports forward to it; the entry's heartbeat answer lists those forwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ConnectResponse } from '../contracts/index.js';
import {
  ADMIN_TOKEN,
  backends,
  startControlPlane,
  type Harness,
} from './testing/control-plane-harness.js';

describe.each(backends())('entry regions on %s', (backend) => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startControlPlane(backend);
    token = (await h.signIn(await h.createAccount())).token;
  });
  afterAll(async () => h?.close());

  const regions = async () =>
    (await h.client(token).listRegions()).regions.map((r) => [r.id, r.entry] as const);
  const admin = () => h.client(ADMIN_TOKEN);

  it('seeded regions offer no entries; a region added as an entry says so in GET /regions', async () => {
    expect((await regions()).every(([, entry]) => entry === false)).toBe(true);
    const made = await admin().adminCreateRegion({
      body: {
        id: 'cn-east',
        name: 'China East (Shanghai)',
        area: 'asia',
        country: 'CN',
        entry: true,
      },
    });
    expect(made).toEqual({
      id: 'cn-east',
      name: 'China East (Shanghai)',
      area: 'asia',
      country: 'CN',
      entry: true,
    });
    const other = await admin().adminCreateRegion({
      body: { id: 'ru-west', name: 'Russia West', area: 'europe', country: 'RU' },
    });
    expect(other.entry).toBe(false);
    expect(await regions()).toContainEqual(['cn-east', true]);
    expect(await regions()).toContainEqual(['ru-west', false]);
  });

  it('PATCH offers or withdraws a region’s relays as entries, and renames it', async () => {
    const patched = await admin().adminUpdateRegion({
      params: { id: 'ru-west' },
      body: { entry: true, name: 'Russia West (Moscow)' },
    });
    expect(patched).toMatchObject({ id: 'ru-west', name: 'Russia West (Moscow)', entry: true });
    expect(await regions()).toContainEqual(['ru-west', true]);
    await admin().adminUpdateRegion({ params: { id: 'ru-west' }, body: { entry: false } });
    expect(await regions()).toContainEqual(['ru-west', false]);
  });

  it('refuses a change of nothing, of an unknown region, and from anyone but the admin', async () => {
    const empty = await h.call('PATCH', '/admin/regions/ru-west', { token: ADMIN_TOKEN, body: {} });
    expect(empty.status).toBe(400);
    const unknown = await h.call('PATCH', '/admin/regions/nowhere', {
      token: ADMIN_TOKEN,
      body: { entry: true },
    });
    expect(unknown.status).toBe(404);
    const device = await h.call('PATCH', '/admin/regions/ru-west', {
      token,
      body: { entry: true },
    });
    expect(device.status).toBe(401);
    expect(await regions()).toContainEqual(['ru-west', false]);
  });

  it('connect with entry_region: the exit as usual, and an entry relay whose ports forward to it', async () => {
    const exit = await h.addHealthyNode('asia-east');
    const entry = await h.addHealthyNode('cn-east');
    const reply = await h.call('POST', '/connect', {
      token,
      body: { region: 'asia-east', protocol: 'ferry', entry_region: 'cn-east' },
    });
    expect(reply.status).toBe(200);
    const answer = ConnectResponse.parse(reply.body);
    expect(answer.node.id).toBe(exit.id);
    expect(answer.entry).toMatchObject({
      id: entry.id,
      region: 'cn-east',
      endpoint_host: '192.0.2.10',
    });
    expect(answer.routing.reasons.at(-1)).toMatch(
      /^entering at node_\S+ \(cn-east\), which forwards/,
    );
    // The entry's heartbeat answer carries the same ports, forwarding to the exit's.
    const beat = (await h.heartbeat(entry.token)).body as { forwards: unknown[] };
    expect(beat.forwards).toEqual(
      expect.arrayContaining([
        {
          port: answer.entry!.wireguard_port,
          protocol: 'udp',
          to_host: '192.0.2.10',
          to_port: 51820,
        },
        { port: answer.entry!.ferry_port, protocol: 'udp', to_host: '192.0.2.10', to_port: 51821 },
        { port: answer.entry!.ferry_port, protocol: 'tcp', to_host: '192.0.2.10', to_port: 51821 },
      ]),
    );
    // A relay outside entry regions forwards nothing.
    expect((await h.heartbeat(exit.token)).body.forwards).toBeUndefined();
  });

  it('refuses an entry region that offers no entries, naming those that do', async () => {
    const reply = await h.call('POST', '/connect', {
      token,
      body: { region: 'asia-east', entry_region: 'eu-west' },
    });
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({
      code: 'not-found',
      detail: '"eu-west" is not an entry region; entry regions: cn-east',
    });
  });
});
