// Regions and nodes in the domain, on memory ports: registration keeps keys unique, heartbeats
// make a node healthy for a while, carry usage to the accounts and hand out check requests.
import { afterEach, describe, expect, it } from 'vitest';
import type { Result } from './errors.js';
import { planOf } from './plans.js';
import {
  memoryDomain,
  newKey,
  NODE_HEALTHY_FOR_MS,
  type MemoryDomain,
} from './testing/memory-domain.js';

const codeOf = (r: Result<unknown>) => (r.ok ? 'ok' : r.error.code);
const quiet = { load: 0, rx_bps: 0, tx_bps: 0 };

describe('Inventory', () => {
  let d: MemoryDomain;
  afterEach(async () => d?.close());

  const newNode = async (region = 'asia-east') => {
    const created = await d.inventory.createNode({
      region,
      endpoint_host: 'node.example.net',
      wireguard_port: 51820,
      ferry_port: 443,
      capacity_mbps: 1000,
    });
    if (!created.ok) throw created.error;
    return d.node(created.value.id);
  };

  it('refuses a node of an unknown region, naming the regions there are', async () => {
    d = memoryDomain();
    const refused = await d.inventory.createNode({
      region: 'mars-north',
      endpoint_host: 'node.example.net',
      wireguard_port: 51820,
      capacity_mbps: 1000,
    });
    expect(codeOf(refused)).toBe('validation-failed');
    if (!refused.ok)
      expect(refused.error.errors?.[0]).toMatchObject({
        field: 'region',
        allowed: ['asia-east', 'asia-southeast', 'eu-west', 'global'],
      });
    expect(d.stores.tables.nodes).toEqual([]);
  });

  it('registers a node’s keys once no one else holds them, and keeps its probe key', async () => {
    d = memoryDomain();
    await d.signIn(await d.createAccount());
    const node = await newNode();
    const held = d.stores.tables.devices[0]!.ferry_public_key;
    expect(codeOf(await d.inventory.register(node, held, null, null))).toBe('key-in-use');
    expect((await d.node(node.id)).wireguard_public_key).toBeNull();

    const first = await d.inventory.register(node, newKey(), newKey(), 4242);
    if (!first.ok) throw first.error;
    expect(first.value.probe_key).toBe(node.probe_key);
    expect((await d.node(node.id)).probe_port).toBe(4242);
    // Again after a restart, with new keys: the same probe key.
    const again = await d.inventory.register(await d.node(node.id), newKey(), null, 4243);
    expect(again.ok && again.value.probe_key).toBe(node.probe_key);
  });

  it('counts a node healthy from its heartbeat until the healthy window passes', async () => {
    d = memoryDomain();
    const node = await newNode();
    expect(codeOf(await d.inventory.heartbeat(node, quiet))).toBe('node-not-registered');
    await d.inventory.register(node, newKey(), newKey(), null);
    const beat = await d.inventory.heartbeat(await d.node(node.id), { ...quiet, load: 0.25 });
    expect(beat.ok && beat.value.healthy_for_seconds).toBe(NODE_HEALTHY_FOR_MS / 1000);
    const regions = await d.inventory.listRegions(planOf('premium'));
    expect(regions.find((r) => r.id === 'asia-east')).toMatchObject({
      nodes_healthy: 1,
      load: 0.25,
    });
    expect(d.inventory.isHealthy(await d.node(node.id))).toBe(true);
    d.clock.now += NODE_HEALTHY_FOR_MS;
    expect(d.inventory.isHealthy(await d.node(node.id))).toBe(false);
  });

  it('tells a node to check its platforms once an operator asked, and only once', async () => {
    d = memoryDomain();
    const node = await d.addHealthyNode('eu-west');
    expect(await d.inventory.requestPlatformCheck(node.id)).toEqual({
      ok: true,
      value: d.inventory.heartbeatSeconds,
    });
    expect(codeOf(await d.inventory.requestPlatformCheck('node_none'))).toBe('not-found');
    const asked = await d.inventory.heartbeat(node, quiet);
    expect(asked.ok && asked.value.check_platforms).toBe(true);
    const next = await d.inventory.heartbeat(node, quiet);
    expect(next.ok && next.value.check_platforms).toBeUndefined();
  });

  it('marks the sessions a heartbeat reports up, and publishes the devices whose state changed', async () => {
    d = memoryDomain();
    const node = await d.addHealthyNode('asia-east');
    const dev = await d.signIn(await d.createAccount());
    const connected = await d.connections.connect(dev.auth, { region: 'asia-east' });
    if (!connected.ok) throw connected.error;
    expect((await d.connections.status(dev.auth)).status).toBe('connecting');
    await d.inventory.heartbeat(node, {
      ...quiet,
      fresh_handshakes: [{ device_id: dev.deviceId, latency_ms: 42 }],
    });
    expect(await d.connections.status(dev.auth)).toMatchObject({
      status: 'connected',
      latency: '42ms',
    });
    expect(d.bus.published).toContainEqual({
      kind: 'device',
      deviceId: dev.deviceId,
      change: 'status',
    });
  });
});
