// Graceful shutdown: on SIGTERM requests in flight finish, long polls are answered, and
// everything written is there after a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, newPublicKey } from './testing/control-plane-harness.js';
import { startServerProcess } from './testing/server-process.js';

const json = (method: string, token?: string, body?: unknown): RequestInit => ({
  method,
  headers: {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(body ? { 'content-type': 'application/json' } : {}),
  },
  ...(body ? { body: JSON.stringify(body) } : {}),
});

describe('SIGTERM', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ferry-stop-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('finishes what is in flight and loses nothing', async () => {
    const first = await startServerProcess(['--data-dir', dataDir]);
    const api = (p: string) => `${first.baseUrl}/api/v1${p}`;
    const account: any = await (
      await fetch(api('/accounts'), json('POST', undefined, { password: 'long enough password' }))
    ).json();
    const node: any = await (
      await fetch(
        api('/admin/nodes'),
        json('POST', ADMIN_TOKEN, {
          region: 'global',
          endpoint_host: 'n1',
          wireguard_port: 1,
          capacity_mbps: 1,
        }),
      )
    ).json();
    await fetch(
      api('/node/register'),
      json('POST', node.token, { wireguard_public_key: newPublicKey() }),
    );
    const { version }: any = await (
      await fetch(api('/node/peers?after=0'), json('GET', node.token))
    ).json();

    // A long poll and a slow request (argon2id verification) are in flight when SIGTERM comes.
    const poll = fetch(api(`/node/peers?after=${version}&wait=30`), json('GET', node.token));
    const signIn = fetch(
      api('/sessions'),
      json('POST', undefined, {
        account_number: account.account_number,
        password: 'long enough password',
        device: {
          name: 'd',
          kind: 'desktop',
          wireguard_public_key: newPublicKey(),
          ferry_public_key: newPublicKey(),
        },
      }),
    );
    await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    const exit = first.stop();
    const signed = await signIn;
    expect(signed.status).toBe(201);
    const { token, device }: any = await signed.json();
    const polled = await poll;
    expect(polled.status).toBe(200);
    expect(await exit).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);

    const second = await startServerProcess(['--data-dir', dataDir]);
    try {
      const devices: any = await (
        await fetch(`${second.baseUrl}/v1/devices`, json('GET', token))
      ).json();
      expect(devices.devices.map((d: { id: string }) => d.id)).toEqual([device.id]);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});
