// Multihop behind an allowlist (issue 21, done-when 3): the censor lets through only
// the prefix of a relay in an entry region (as Russian mobile networks and Iran do in shutdowns)
// and drops the control plane. A fresh laptop with the relay list reaches the service through
// that entry relay's TLS port, connects (multihop auto) to a foreign exit, and reaches the foreign
// echo service, which sees the exit's address. A capture on the entry's uplink holds none of
// the client's plaintext and no packet from the client to the exit: the entry forwards the
// encrypted tunnel from its own address. With multihop auto (the default) a plain connect finds
// that only the entry gets through, enters there by itself, and starts there next time.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { LocalStatus } from '../../../contracts/index.js';
import { readPcapIp } from '../pcap.js';
import type { RelayHandle } from '../testbed.js';
import { startCoverSite } from '../censor/cover-site.js';
import type { CensorOptions } from '../censor/profiles.js';
import { startAutopilotBed, type AutopilotBed } from './autopilot-kit.js';
import { TLS_PORT } from './cases.js';

const EXIT_REGION = 'asia-east';
const ENTRY_REGION = 'home-entry';

describe('multihop behind an allowlist', () => {
  let b: AutopilotBed | undefined;
  let entry: RelayHandle;
  // The censor's options, its allowlist filled in once the entry relay has an address.
  const censor: CensorOptions = { profiles: ['allowlist', 'service-block'], allow: [] };
  beforeAll(async () => {
    b = await startAutopilotBed(
      { censor },
      async (bed) => {
        await bed.admin.adminCreateRegion({
          body: {
            id: ENTRY_REGION,
            name: 'Home (entry)',
            area: 'home',
            country: null,
            entry: true,
          },
        });
        const cover = await startCoverSite(bed.net, {
          serverName: 'cover.example',
          host: 'cover2',
        });
        entry = await bed.addRelay('entry', ENTRY_REGION, {
          ferry: true,
          tls: { port: TLS_PORT, cover },
        });
        (censor.allow as string[]).push(`${entry.address}/32`);
        const list = await bed.control().relayList();
        const file = path.join(bed.net.dir, 'relay-list.json');
        writeFileSync(file, JSON.stringify(list));
        return ['--relay-list', file, '--service-key', list.public_key];
      },
      'blocked',
    );
  }, 180_000);
  afterAll(async () => {
    await b?.stop();
  }, 60_000);

  it('a fresh client: signs up through the entry relay, and with multihop auto enters there by itself; the entry forwards ciphertext only', async () => {
    const { bed, laptop, relay: exit } = b!;
    laptop.human('init', '--protocol', 'wireguard', ...bed.endpointArgs());
    laptop.human('account', 'create', '--device-name', 'laptop');
    expect(laptop.json('config', 'get', 'multihop')).toEqual({ multihop: 'auto' });
    // The exit is out of reach from here; the entry is the one relay that gets through.
    expect(bed.echoFrom('laptop', 2)).toBeUndefined();

    const wire = path.join(bed.net.dir, 'entry-uplink.pcap');
    const stopCapture = await bed.net.capture('entry', 'eth0', 'ip', wire, { maxSeconds: 120 });
    const t0 = performance.now();
    // A plain connect: straight to the exit gets no answer on any transport, then the entry.
    const up = laptop.json('connect', '--region', EXIT_REGION) as LocalStatus;
    const firstMs = performance.now() - t0;
    expect(up).toMatchObject({
      status: 'connected',
      node: { id: exit.nodeId, entry: { id: entry.nodeId, region: ENTRY_REGION } },
    });
    expect(up.node?.endpoint.startsWith(`${entry.address}:`)).toBe(true);
    expect(laptop.human('status')).toContain(`entering at ${entry.nodeId} in ${ENTRY_REGION}`);
    // The echo service abroad sees the exit's address; a marker travels inside the tunnel.
    const marker = `hop-marker-${Date.now()}`;
    expect(bed.echoFrom('laptop', 5, `${bed.echoUrl}?${marker}`)).toBe(exit.address);
    await stopCapture();
    laptop.human('disconnect');

    const packets = readPcapIp(wire);
    const laptopAddress = laptop.address;
    // Between the entry and the exit: only the entry's own address, never the laptop's.
    const toExit = packets.filter((p) => p.dst === exit.address || p.src === exit.address);
    expect(toExit.length).toBeGreaterThan(0);
    expect(toExit.filter((p) => p.src === laptopAddress || p.dst === laptopAddress)).toEqual([]);
    expect(new Set(toExit.flatMap((p) => [p.src, p.dst]))).toEqual(
      new Set([entry.address, exit.address]),
    );
    // No plaintext of the client's traffic anywhere on the entry's wire.
    expect(readFileSync(wire).includes(Buffer.from(marker))).toBe(false);

    // Remembered for this network: straight to the entry, without the direct tries first.
    const t1 = performance.now();
    const second = laptop.json('connect', '--region', EXIT_REGION) as LocalStatus;
    expect(second.node?.entry?.id).toBe(entry.nodeId);
    expect(performance.now() - t1).toBeLessThan(firstMs);
    laptop.human('disconnect');
  }, 240_000);

  it('--via names the entry region for one connect', async () => {
    const { bed, laptop, relay: exit } = b!;
    const up = laptop.json(
      'connect',
      '--region',
      EXIT_REGION,
      '--via',
      ENTRY_REGION,
    ) as LocalStatus;
    expect(up).toMatchObject({
      status: 'connected',
      node: { id: exit.nodeId, entry: { id: entry.nodeId, region: ENTRY_REGION } },
    });
    expect(bed.echoFrom('laptop', 5)).toBe(exit.address);
    laptop.human('disconnect');
  }, 120_000);
});
