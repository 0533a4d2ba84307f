// Reaching the service when it is blocked (issue 21, done-when 1 and 2): the censor drops the
// control plane's address (service-block) and UDP (udp-block). A fresh laptop that knows only a
// relay list saved from the service and the service's key (`netcli daemon --relay-list FILE
// --service-key KEY`, as a shipped list would be) creates an account, signs in, lists regions and
// connects, with `api_access auto`: its calls go through the relay's TLS port, which splices them
// to the control plane; `netcli api-access test direct` says the direct way fails, and why. A
// relay list that does not verify is refused and the last good one stays.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ApiAccessList, LocalStatus, SignedRelayList } from '../../../contracts/index.js';
import { startAutopilotBed, type AutopilotBed } from './autopilot-kit.js';

const REGION = 'asia-east';

describe('API access behind the censor', () => {
  let b: AutopilotBed | undefined;
  let list: SignedRelayList;
  let listFile: string;
  beforeAll(async () => {
    b = await startAutopilotBed(
      {
        censor: { profiles: ['udp-block', 'service-block'] },
      },
      async (bed) => {
        list = await bed.control().relayList();
        listFile = path.join(bed.net.dir, 'relay-list.json');
        writeFileSync(listFile, JSON.stringify(list));
        return ['--relay-list', listFile, '--service-key', list.public_key];
      },
      'blocked',
    );
  }, 180_000);
  afterAll(async () => {
    await b?.stop();
  }, 60_000);

  it('service-block + udp-block: a fresh client with only the relay list signs up, lists regions and connects', async () => {
    const { bed, laptop, relay } = b!;
    const ctrl = bed.net.host('ctrl').address;
    laptop.human('init', '--protocol', 'wireguard', ...bed.endpointArgs());
    // Direct: blocked, and said so (no address in the words).
    const direct = laptop.run('api-access', 'test', 'direct');
    expect(direct.code).toBe(1);
    expect(direct.stdout).toMatch(
      /^direct: fails: no answer in time \(the address may be blocked\)/,
    );
    expect(direct.stdout).not.toContain(ctrl);
    expect(laptop.human('api-access', 'test', 'relays')).toMatch(
      /^relays: reached the service in \d+ ms/,
    );

    // Everything a new user does first, through the relay.
    laptop.human('account', 'create', '--device-name', 'laptop');
    const methods = laptop.json('api-access', 'list') as ApiAccessList;
    expect(methods).toMatchObject({
      setting: 'auto',
      in_use: 'relays',
      // Refreshed on reaching the service (through the relay): the service's own, newer list.
      relay_list: { relays: 1, source: 'service', key_from: 'daemon', refused: null },
    });
    expect(laptop.human('api-access', 'list')).toMatch(
      /API access: auto \(in use: relays\)\n {2}the service cannot be reached directly from here: reached through a relay/,
    );
    expect(laptop.human('status')).toMatch(
      /Service {3}through relays: the service cannot be reached directly from here/,
    );
    const regions = laptop.json('region', 'list') as { regions: { id: string }[] };
    expect(regions.regions.map((r) => r.id)).toContain(REGION);
    const up = laptop.json('connect', '--region', REGION) as LocalStatus;
    expect(up).toMatchObject({ status: 'connected', transport: 'tls' });
    expect(bed.echoFrom('laptop')).toBe(relay.address);
    laptop.human('disconnect');
  }, 240_000);

  it('a relay list that does not verify is refused; the last good one stays in use', async () => {
    const { laptop } = b!;
    // The service's own list is kept (the laptop reached it through the relay); a changed copy
    // given to a daemon is refused and said so.
    const content = JSON.parse(Buffer.from(list.list, 'base64').toString('utf8'));
    content.relays = [];
    const forged = { ...list, list: Buffer.from(JSON.stringify(content)).toString('base64') };
    writeFileSync(listFile, JSON.stringify(forged));
    await laptop.stop();
    await laptop.startDaemon();
    const status = laptop.json('status') as LocalStatus;
    expect(status.api_access.relay_list).toMatchObject({
      relays: 1,
      source: 'service',
      refused: { source: 'given', why: 'bad-signature' },
    });
    expect(laptop.human('status')).toMatch(
      /Relay list refused: the relay list’s signature does not verify: it was changed/,
    );
    const relays = laptop.run('api-access', 'test', 'relays');
    expect(relays.stdout).toMatch(/^relays: reached the service/);
  }, 120_000);
});
