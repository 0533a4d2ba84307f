// The transport autopilot behind the censor (issue 20, done-when 2): a laptop on the home network
// running netcli daemon with obfuscation auto, a relay abroad with UDP (WireGuard, Ferry), Ferry
// over TCP and the TLS transport (its cover site a real nginx), a foreign iperf3 server, and the
// censor on the router with the profiles of a case. The control plane counts as domestic here
// (its address is one of the censor's home prefixes) unless a test blocks it (API access).
import { afterAll, beforeAll, expect, it } from 'vitest';

import type { LocalStatus, Protocol, Transport } from '../../../contracts/index.js';
import { runIperf, receivedBitsPerSecond } from '../ferry-iperf.js';
import { NetcliHost } from '../netcli-host.js';
import { requireTools } from '../test-network.js';
import { Testbed, type RelayHandle } from '../testbed.js';
import { AppPage } from '../../gui/app-page.js';
import {
  NamespaceBrowser,
  keepScreenshot,
  openGuiWithOpener,
  signInFrom,
} from '../../gui/browser-kit.js';
import { Censor, type CensorOptions } from '../censor/censor.js';
import { CHROMIUM, captureChromeJa4 } from '../censor/chrome-hello.js';
import { startCoverSite, type CoverSite } from '../censor/cover-site.js';
import { TLS_PORT } from './cases.js';

const REGION = 'asia-east';
/** How long the connection carries traffic before the second connect (done-when 2: a minute). */
const HOLD_MS = 60_000;

export interface AutopilotCase {
  /** The censor's options; the case's fixed parts (home, JA4 allowlist, real servers) are added. */
  censor: Readonly<CensorOptions>;
  /** The laptop's protocol setting (default wireguard, the service's default). */
  protocol?: Protocol;
  /** The transport the autopilot ends up on. */
  transport: Transport;
  /**
   * The transport of the first connect when the autopilot moves the tunnel while connected (a
   * throttled UDP, noticed under a download past the censor's grace): it starts on this one,
   * then a download moves it to `transport`, saying `reason`.
   */
  startsOn?: Transport;
  /** What the first connect's reason says (default: that it uses the transport). */
  reason?: RegExp;
  /**
   * The app's Home after the first connect: the reason it shows (the status's words), kept as a
   * screenshot of this name in .test-output/screenshots.
   */
  screenshot?: { name: string; reason: string };
}

/** The app open on the laptop's engine (the web graphical mode in Chromium): Home's reason. */
async function appShows(b: AutopilotBed, name: string): Promise<string | null> {
  const opened = await openGuiWithOpener(b.bed, b.laptop);
  const browser = await NamespaceBrowser.launch(b.bed.net, 'laptop');
  try {
    const app = new AppPage(await browser.newPage());
    await signInFrom(app, opened.file);
    await app.waitForState('Connected');
    const reason = await app.transportReason();
    await keepScreenshot(app.page, name);
    return reason;
  } finally {
    await browser.close();
  }
}

/** How long a download may take to move the tunnel (the censor's grace, then the watch's window). */
const MOVE_WITHIN_MS = 45_000;
/** The download runs in pieces this long, back to back, until the tunnel moved. */
const DOWNLOAD_PIECE_S = 5;

/**
 * Downloads from the foreign server through the tunnel until the autopilot moves the tunnel to
 * `to` (the throttle is noticed): the status then, and how long the download ran until the move.
 * A piece of the download may break with the move (another tunnel): it is load, not a
 * measurement.
 */
export async function movedUnderLoad(
  b: AutopilotBed,
  to: Transport,
): Promise<{ status: LocalStatus; ms: number }> {
  const { bed, laptop, abroad } = b;
  const t0 = performance.now();
  const deadline = t0 + MOVE_WITHIN_MS;
  let moved: { status: LocalStatus; ms: number } | null = null;
  let last: LocalStatus | null = null;
  const watch = (async () => {
    while (moved === null && performance.now() < deadline) {
      last = laptop.json('status') as LocalStatus;
      if (last.status === 'connected' && last.transport === to)
        moved = { status: last, ms: performance.now() - t0 };
      else await new Promise((r) => setTimeout(r, 500));
    }
  })();
  while (moved === null && performance.now() < deadline) {
    await runIperf(bed.net, { server: 'abroad', client: 'laptop', bind: abroad }, [
      '-R',
      '-t',
      String(DOWNLOAD_PIECE_S),
    ]).catch(() => undefined);
  }
  await watch;
  if (moved === null) {
    const s = last as LocalStatus | null;
    throw new Error(`still on ${s?.transport ?? 'nothing'} (${s?.status ?? 'no status'})`);
  }
  return moved;
}

/** One case's test internet: the censor on the router, the laptop at home, the relay abroad. */
export interface AutopilotBed {
  bed: Testbed;
  censor: Censor;
  laptop: NetcliHost;
  relay: RelayHandle;
  cover: CoverSite;
  /** The foreign iperf3 server's host (`abroad`) address. */
  abroad: string;
  /** Removes the censor, the laptop's daemon and the whole test internet. */
  stop(): Promise<void>;
}

/** Builds a case's test internet (the laptop not yet set up: no init, no account). */
export async function startAutopilotBed(
  c: Pick<AutopilotCase, 'censor'>,
  /** More options of the laptop's `netcli daemon` (made once the relay is registered). */
  daemonArgs: readonly string[] | ((bed: Testbed) => Promise<readonly string[]>) = [],
  /**
   * The control plane is one of the censor's home prefixes (default), or foreign and blocked by
   * its address (the case then has service-block among its profiles).
   */
  controlPlane: 'domestic' | 'blocked' = 'domestic',
): Promise<AutopilotBed> {
  requireTools(['iperf3', 'nginx', CHROMIUM]);
  const allow = await captureChromeJa4();
  const bed = await Testbed.start();
  try {
    const net = bed.net;
    const cover = await startCoverSite(net, { serverName: 'cover.example' });
    const relay = await bed.addRelay('tokyo', REGION, {
      ferry: true,
      tls: { port: TLS_PORT, cover },
    });
    const abroad = net.addServerHost('abroad').address;
    const laptop = await NetcliHost.start(bed, 'laptop', {
      prepare: () => net.moveHome('laptop'),
      daemonArgs: typeof daemonArgs === 'function' ? await daemonArgs(bed) : daemonArgs,
    });
    const censor = await Censor.start(net, {
      ja4Allow: [allow],
      realServers: { [cover.serverName]: `${cover.address}:${cover.port}` },
      probeTimeoutMs: 2_000,
      ...c.censor,
      ...(controlPlane === 'blocked'
        ? {
            service: {
              addresses: [`${net.host('ctrl').address}/32`, ...(c.censor.service?.addresses ?? [])],
              names: c.censor.service?.names ?? [],
            },
          }
        : {}),
      home: [
        net.homeSubnet,
        ...(controlPlane === 'domestic' ? [`${net.host('ctrl').address}/32`] : []),
        ...(c.censor.home ?? []),
      ],
    });
    const stop = async () => {
      await censor.stop();
      await laptop.stop();
      await bed.stop();
    };
    return { bed, censor, laptop, relay, cover, abroad, stop };
  } catch (e) {
    await bed.stop();
    throw e;
  }
}

/**
 * The case's test: a fresh client with obfuscation auto connects, carries HTTP and an iperf3 run to
 * a foreign server, stays connected through a minute of traffic, and its second connect on the
 * same network starts with the transport it remembered (the status says so).
 */
export function autopilotCase(name: string, c: AutopilotCase): void {
  let b: AutopilotBed | undefined;
  beforeAll(async () => {
    b = await startAutopilotBed(c);
  }, 180_000);
  afterAll(async () => {
    await b?.stop();
  }, 60_000);

  it(`${name}: obfuscation auto connects over ${c.transport}, carries HTTP and iperf3 for a minute, and the next connect starts with it`, async () => {
    const { bed, laptop, relay, abroad } = b!;
    const net = bed.net;
    laptop.human('init', '--protocol', c.protocol ?? 'wireguard', ...bed.endpointArgs());
    laptop.human('account', 'create', '--device-name', 'laptop');
    expect(laptop.json('config', 'get', 'obfuscation')).toEqual({ obfuscation: 'auto' });
    let first = laptop.json('connect', '--region', REGION) as LocalStatus;
    expect(first, JSON.stringify(b!.censor.events().slice(-5))).toMatchObject({
      status: 'connected',
      transport: c.startsOn ?? c.transport,
    });
    if (c.startsOn) first = (await movedUnderLoad(b!, c.transport)).status;
    // The node as the status names it: its TLS port when the tunnel runs over TLS.
    if (c.transport === 'tls') expect(first.node?.endpoint).toBe(`${relay.address}:${TLS_PORT}`);
    expect(first.transport_reason?.message).toMatch(
      c.reason ?? new RegExp(`using ${c.transport.toUpperCase()}`),
    );
    expect(bed.echoFrom('laptop')).toBe(relay.address);
    if (c.screenshot) expect(await appShows(b!, c.screenshot.name)).toBe(c.screenshot.reason);
    const iperf = await runIperf(net, { server: 'abroad', client: 'laptop', bind: abroad }, [
      '-t',
      '3',
    ]);
    expect(iperf.code, iperf.report.error).toBe(0);
    expect(receivedBitsPerSecond(iperf.report)).toBeGreaterThan(1e6);
    // A minute of traffic: the echo service answers through the relay every few seconds.
    const until = Date.now() + HOLD_MS;
    let rounds = 0;
    while (Date.now() < until) {
      expect(bed.echoFrom('laptop', 5), `after ${rounds} rounds`).toBe(relay.address);
      rounds++;
      await new Promise((r) => setTimeout(r, 3_000));
    }
    expect(laptop.json('status')).toMatchObject({ status: 'connected', transport: c.transport });
    laptop.human('disconnect');
    // The same network: the transport that got through first, said as remembered.
    const second = laptop.json('connect', '--region', REGION) as LocalStatus;
    expect(second).toMatchObject({ status: 'connected', transport: c.transport });
    expect(second.transport_reason?.code).toBe('remembered');
    expect(laptop.human('status')).toMatch(
      new RegExp(`Transport: ${c.transport.toUpperCase()} worked on this network before`),
    );
    laptop.human('disconnect');
  }, 240_000);
}
