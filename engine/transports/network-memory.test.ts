import { mkdtempSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import type { NetworkIdentity } from '../../platform/os/network-identity.js';
import { NetworkMemory, REMEMBERED_NETWORKS, networkKey } from './network-memory.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function stateDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ferry-netmem-'));
  dirs.push(d);
  return path.join(d, 'state');
}

const home: NetworkIdentity = { gatewayMac: 'aa:bb:cc:00:11:22', prefix: '192.168.1.0/24' };
const cafe: NetworkIdentity = { gatewayMac: 'de:ad:be:ef:00:01', prefix: '192.168.1.0/24' };
const on = (id: NetworkIdentity | null) => ({ read: async () => id });

describe('NetworkMemory', () => {
  it('recalls what worked per network, in files that name no network', async () => {
    const dir = stateDir();
    let current: NetworkIdentity | null = home;
    const memory = new NetworkMemory(dir, { read: async () => current });
    const atHome = await memory.currentNetwork();
    await memory.remember(atHome, 'tls');
    current = cafe;
    const atCafe = await memory.currentNetwork();
    expect(atCafe).not.toBe(atHome);
    expect(await memory.recall(atCafe)).toBeNull();
    await memory.remember(atCafe, 'udp');
    expect(await memory.recall(atHome)).toBe('tls');
    expect(await memory.recall(atCafe)).toBe('udp');
    // A new engine on the same state dir: the same keys (the secret is kept), the same memory.
    current = home;
    const again = new NetworkMemory(dir, { read: async () => current });
    expect(await again.recall(await again.currentNetwork())).toBe('tls');
    for (const file of ['transports.json', 'network-secret.json']) {
      const full = path.join(dir, file);
      expect(statSync(full).mode & 0o777).toBe(0o600);
      const text = readFileSync(full, 'utf8');
      expect(text).not.toMatch(/aa:bb|192\.168|de:ad/i);
    }
  });

  it('keys networks with the install’s secret: another install names them otherwise', () => {
    const a = networkKey(home, Buffer.alloc(32, 1));
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(networkKey(home, Buffer.alloc(32, 1))).toBe(a);
    expect(networkKey(home, Buffer.alloc(32, 2))).not.toBe(a);
    expect(networkKey({ ...home, gatewayMac: null }, Buffer.alloc(32, 1))).not.toBe(a);
  });

  it('keeps the most recent networks only', async () => {
    const dir = stateDir();
    const memory = new NetworkMemory(dir, on(home));
    for (let i = 0; i < REMEMBERED_NETWORKS + 3; i++)
      await memory.remember(i.toString(16).padStart(32, '0'), 'tcp');
    const saved = JSON.parse(readFileSync(path.join(dir, 'transports.json'), 'utf8'));
    expect(saved.networks).toHaveLength(REMEMBERED_NETWORKS);
    expect(await memory.recall('0'.repeat(32))).toBeNull();
    expect(await memory.recall((REMEMBERED_NETWORKS + 2).toString(16).padStart(32, '0'))).toBe(
      'tcp',
    );
  });

  it('has no network to name off any network, and a damaged file is an error left as it is', async () => {
    const dir = stateDir();
    const memory = new NetworkMemory(dir, on(null));
    expect(await memory.currentNetwork()).toBeNull();
    expect(await memory.recall(null)).toBeNull();
    await memory.remember(null, 'udp');
    await new NetworkMemory(dir, on(home)).remember('f'.repeat(32), 'udp');
    const file = path.join(dir, 'transports.json');
    writeFileSync(file, '{"version":1,"networks":[{"network":"x"}]}', { mode: 0o600 });
    await expect(memory.recall('f'.repeat(32))).rejects.toMatchObject({ code: 'config-corrupt' });
    expect(readFileSync(file, 'utf8')).toMatch(/"x"/);
  });
});
