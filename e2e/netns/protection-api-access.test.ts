// No leak with API access through relays or multihop (issue 21, done-when 4): a laptop with
// lockdown on and
// `api_access relays` (as auto settles on where the service is blocked) connects, calls the
// control plane while connected (regions, account) and disconnects, all under continuous traffic
// of every kind with its eth0 captured. Nothing leaves but to the relays (their tunnel ports,
// TLS ports and probe responders): not one packet goes to the control plane itself. Through an
// entry relay (--via), nothing leaves but to the entry, the control plane and the domestic set:
// not one packet to the exit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { LocalStatus } from '../../contracts/index.js';
import { LINK_SCOPE_CIDRS, leakSummary, leaksOf } from './leak-watch.js';
import { ProtectionBed } from './protection-kit.js';

describe('protection: no leak with API access through relays', () => {
  let p: ProtectionBed;
  /** The relay the first case connected to directly (the laptop's address is its peer's last). */
  let directRelay: string | undefined;
  beforeAll(async () => {
    p = await ProtectionBed.start({ tls: true });
    p.setUp();
  }, 180_000);
  afterAll(async () => {
    await p?.stop();
  }, 60_000);

  it('lockdown + api_access relays: connect, calls while connected and disconnect go to the relays only', async () => {
    const { laptop } = p;
    const ctrl = p.bed.net.host('ctrl').address;
    laptop.human('config', 'set', 'lockdown', 'on');
    // The relay list comes from the service on sign-in (its key recorded on first contact).
    const before = laptop.json('api-access', 'list');
    expect(before.relay_list).toMatchObject({ relays: 2, source: 'service', key_from: 'config' });
    laptop.human('api-access', 'use', 'relays');

    const watch = await p.watch();
    expect(laptop.json('region', 'list').regions.length).toBeGreaterThan(0);
    const up = laptop.json('connect', '--region', 'work') as LocalStatus;
    expect(up).toMatchObject({ status: 'connected', protection: { kill_switch: 'active' } });
    const relay = p.currentRelay();
    directRelay = relay.address;
    expect(p.bed.echoFrom('laptop', 3)).toBe(relay.address);
    laptop.human('account');
    expect((laptop.json('status') as LocalStatus).api_access.in_use).toBe('relays');
    laptop.human('disconnect');
    const result = await watch.stop();

    expect(p.leaks(result)).toEqual([]);
    const toControlPlane = result.packets.filter((x) => x.dst === ctrl || x.src === ctrl);
    expect(
      toControlPlane.map((x) => `${x.time} ${x.src}:${x.sport} > ${x.dst}:${x.dport}`),
      'packets to or from the control plane',
    ).toEqual([]);
    // The API calls went to the relays' TLS ports (before the tunnel: straight; after: inside).
    const tlsPorts = new Set(p.relays.map((r) => `${r.address}:${r.tls!.port}`));
    expect(result.packets.some((x) => tlsPorts.has(`${x.dst}:${x.dport}`))).toBe(true);
    laptop.human('config', 'set', 'lockdown', 'off');
  }, 120_000);

  it('multihop (--via an entry region): nothing leaves but to the entry relay, the control plane and the domestic set', async () => {
    const { laptop, bed } = p;
    laptop.human('api-access', 'use', 'auto');
    await bed.admin.adminCreateRegion({
      body: { id: 'home-entry', name: 'Home (entry)', area: 'home', country: null, entry: true },
    });
    const entry = await bed.addRelay('entry', 'home-entry', { ferry: true });
    laptop.human('config', 'set', 'lockdown', 'on');
    const watch = await p.watch();
    const up = laptop.json('connect', '--region', 'work', '--via', 'home-entry') as LocalStatus;
    expect(up).toMatchObject({ status: 'connected', node: { entry: { id: entry.nodeId } } });
    const exit = p.relays.find((r) => r.nodeId === up.node?.id)!;
    expect(p.bed.echoFrom('laptop', 3)).toBe(exit.address);
    laptop.human('region', 'list');
    // A few seconds of the watch's traffic through both hops.
    await new Promise((r) => setTimeout(r, 3_000));
    laptop.human('disconnect');
    const result = await watch.stop();
    laptop.human('config', 'set', 'lockdown', 'off');

    const leaks = leakSummary(
      leaksOf(result.packets, {
        addresses: [entry.address, bed.net.host('ctrl').address],
        cidrs: [`${p.domestic.address}/32`, ...LINK_SCOPE_CIDRS],
        self: result.self,
      }),
    );
    expect(leaks).toEqual([]);
    // Not one packet from the laptop to the exit itself, and none from the exit but one thing:
    // when the exit is the relay the first case used directly, it still holds the laptop's
    // address as its peer's last endpoint, and late replies to that session's traffic make it
    // try a WireGuard handshake there (an initiation: 148 bytes of UDP payload from its port),
    // which the laptop drops. Anything else from the exit is the exit knowing the laptop anew.
    const staleInitiation = (x: (typeof result.packets)[number]) =>
      x.src === directRelay && x.protocol === 'udp' && x.sport === 51820 && x.length === 156;
    expect(result.packets.filter((x) => x.dst === exit.address)).toEqual([]);
    expect(result.packets.filter((x) => x.src === exit.address && !staleInitiation(x))).toEqual([]);
    expect(result.probes.tcp?.successes).toBeGreaterThan(0);
  }, 120_000);
});
