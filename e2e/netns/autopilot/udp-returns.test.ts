// UDP tried again while connected: a laptop on TLS because the censor drops UDP tries UDP again
// once its tunnel is idle (netcli daemon --udp-retry-after 5, where a user waits 10 minutes):
// while the block holds it is back on TLS within seconds and still carries traffic; once the
// censor lifts the block the next try moves the tunnel to UDP, says why, and the next connect
// starts there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { LocalStatus } from '../../../contracts/index.js';
import { startAutopilotBed, type AutopilotBed } from './autopilot-kit.js';

const REGION = 'asia-east';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the transport autopilot behind the censor', () => {
  let b: AutopilotBed | undefined;
  beforeAll(async () => {
    b = await startAutopilotBed({ censor: { profiles: ['udp-block'] } }, [
      '--udp-retry-after',
      '5',
    ]);
  }, 180_000);
  afterAll(async () => {
    await b?.stop();
  }, 60_000);

  /** Polls the status (bounded) until `check` holds; the states seen on the way. */
  async function until(what: string, check: (s: LocalStatus) => boolean, ms: number) {
    const seen = new Set<string>();
    const end = Date.now() + ms;
    for (;;) {
      const s = b!.laptop.json('status') as LocalStatus;
      seen.add(s.status);
      if (check(s)) return { status: s, seen };
      if (Date.now() > end) throw new Error(`${what}: still ${s.status} over ${s.transport}`);
      await sleep(200);
    }
  }

  it('udp-block, then lifted: UDP is tried again while idle, and taken once it gets through', async () => {
    const { bed, laptop, relay, censor } = b!;
    laptop.human('init', '--protocol', 'wireguard', ...bed.endpointArgs());
    laptop.human('account', 'create', '--device-name', 'laptop');
    const first = laptop.json('connect', '--region', REGION) as LocalStatus;
    expect(first).toMatchObject({ status: 'connected', transport: 'tls' });

    // The first try, 5 s into an idle tunnel: UDP is still dropped, back on TLS.
    await until('a try of UDP', (s) => s.status === 'reconnecting', 30_000);
    const back = await until('back on TLS', (s) => s.status === 'connected', 30_000);
    expect(back.status).toMatchObject({
      transport: 'tls',
      transport_reason: { code: 'fallback', blocked: [{ blockage: 'udp-unanswered' }] },
    });
    expect(bed.echoFrom('laptop', 5)).toBe(relay.address);

    // The censor lifts the block: the next try (10 s later) gets through.
    await censor.stop();
    const moved = await until('UDP again', (s) => s.transport === 'udp', 60_000);
    expect(moved.status).toMatchObject({
      status: 'connected',
      transport_reason: {
        code: 'retried',
        message: 'UDP gets through on this network again: using it',
      },
    });
    expect(bed.echoFrom('laptop', 5)).toBe(relay.address);
    expect(laptop.human('status')).toMatch(/Transport: UDP gets through on this network again/);
    laptop.human('disconnect');
    const again = laptop.json('connect', '--region', REGION) as LocalStatus;
    expect(again).toMatchObject({ transport: 'udp', transport_reason: { code: 'remembered' } });
    laptop.human('disconnect');
  }, 240_000);
});
