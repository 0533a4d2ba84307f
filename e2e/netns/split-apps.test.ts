// Programs on one way: `netcli exec --via direct -- curl` reaches a foreign echo service from the
// laptop's own address while the rest of the laptop exits at the relay; `--via tunnel` reaches a
// domestic one through the relay; with the tunnel down a `tunnel` program gets nothing out, and
// the kill switch's absence changes nothing for it. A rule by program (`split add --app`) puts a
// program started otherwise on its way too.
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startDnsAuthority, TEST_ZONE, type DnsAuthority } from './dns-authority.js';
import { NetcliHost } from './netcli-host.js';
import { Testbed, type RelayHandle } from './testbed.js';

const HOME = 'DE';

describe('split by program: netcli exec and rules by program', () => {
  let bed: Testbed;
  let laptop: NetcliHost;
  let relay: RelayHandle;
  let domestic: { address: string; url: string };
  /** The laptop's ISP's resolver, and the one the relay's resolver asks. */
  let home: DnsAuthority;
  let world: DnsAuthority;

  /** `netcli exec --via <via> -- curl <url>` on the laptop: its exit code and what curl printed. */
  const exec = (via: string, url: string) => {
    const r = laptop.execVia(via, 'curl', '-s', '--max-time', '3', url);
    return { code: r.code, out: r.stdout.trim(), err: r.stderr };
  };
  const curl = (url: string) => bed.echoFrom('laptop', 3, url);

  beforeAll(async () => {
    bed = await Testbed.start({ controlPlaneOn: 'servers' });
    domestic = await bed.startEcho('domestic');
    const echo = new URL(bed.echoUrl).hostname;
    world = await startDnsAuthority(bed, 'dns-world', { wildcard: echo, ttl: 1 });
    home = await startDnsAuthority(bed, 'dns-home', { wildcard: echo, ttl: 1 });
    relay = await bed.addRelay('tokyo', 'asia-east', { ferry: true, dnsUpstream: world.address });
    const geoip = path.join(bed.net.dir, 'geoip.csv');
    laptop = await NetcliHost.start(bed, 'laptop', {
      daemonArgs: ['--geoip-file', geoip],
      prepare: (address) => {
        writeFileSync(geoip, `${address}/32,${HOME}\n${domestic.address}/32,${HOME}\n`);
        bed.net.setEtcFile('laptop', 'resolv.conf', `nameserver ${home.address}\n`);
      },
    });
    laptop.human('init', '--protocol', 'wireguard', ...bed.endpointArgs());
    laptop.human('account', 'create', '--device-name', 'laptop');
  }, 180_000);

  afterAll(async () => {
    await laptop?.stop();
    await bed?.stop();
  }, 60_000);

  it('exec --via direct reaches abroad from home, --via tunnel reaches home through the relay', () => {
    expect(laptop.json('connect', '--region', 'asia-east').status).toBe('connected');
    // The rest of the laptop: abroad through the relay, home directly.
    expect(curl(bed.echoUrl)).toBe(relay.address);
    expect(curl(domestic.url)).toBe(laptop.address);
    // The programs: the other way round.
    const direct = exec('direct', bed.echoUrl);
    expect(direct, `${direct.err}\n${laptop.daemon?.output()}`).toMatchObject({
      code: 0,
      out: laptop.address,
    });
    expect(exec('tunnel', domestic.url)).toMatchObject({ code: 0, out: relay.address });
    // A program's exit status is netcli exec's, and a program that is not there says so.
    const missing = laptop.execVia('direct', 'no-such-program-here');
    expect(missing.code).toBe(127);
    expect(missing.stderr).toMatch(/no program no-such-program-here/);
    // A way that is no way: refused before anything runs.
    expect(exec('sideways', bed.echoUrl).code).not.toBe(0);
  }, 60_000);

  it('a `direct` program’s names are asked at home only, a `tunnel` program’s through the tunnel only', async () => {
    const url = (name: string) => `http://${name}.${TEST_ZONE}:${new URL(bed.echoUrl).port}/`;
    expect(exec('direct', url('one'))).toMatchObject({ code: 0, out: laptop.address });
    // (The authority's record of a query reaches the test a moment after its answer.)
    expect(await home.waitAsked(`one.${TEST_ZONE}`)).toContain(laptop.address);
    expect(world.whoAsked(`one.${TEST_ZONE}`)).toEqual([]);
    expect(exec('tunnel', url('two'))).toMatchObject({ code: 0, out: relay.address });
    expect(await world.waitAsked(`two.${TEST_ZONE}`)).toContain(relay.address);
    expect(home.whoAsked(`two.${TEST_ZONE}`)).toEqual([]);
  }, 60_000);

  it('with the tunnel down a `tunnel` program gets nothing out; a `direct` one goes as before', () => {
    laptop.human('disconnect');
    expect(curl(bed.echoUrl)).toBe(laptop.address);
    const blocked = exec('tunnel', domestic.url);
    expect(blocked.code).not.toBe(0);
    expect(blocked.out).toBe('');
    expect(exec('direct', bed.echoUrl)).toMatchObject({ code: 0, out: laptop.address });
    // The kill switch off changes nothing for it: no tunnel, no way out.
    laptop.human('config', 'set', 'kill_switch', 'false');
    expect(exec('tunnel', bed.echoUrl).out).toBe('');
    laptop.human('config', 'set', 'kill_switch', 'true');
  }, 60_000);

  it('a rule by program puts a program started otherwise on its way', async () => {
    // A program of its own path (a copy of bash), started without netcli: the engine finds it.
    const tool = path.join(bed.net.dir, 'office-shell');
    copyFileSync('/bin/bash', tool);
    expect(laptop.human('split', 'add', '--app', tool, '--via', 'tunnel')).toContain(
      'through the tunnel only',
    );
    expect(laptop.json('split', 'list').rules).toEqual([{ app: tool, via: 'tunnel' }]);
    laptop.json('connect', '--region', 'asia-east');
    // It waits a moment before its first packet (the engine looks every half second).
    const run = (url: string) =>
      bed.net
        .execResult('laptop', [tool, '-c', `sleep 1.5; curl -s --max-time 3 ${url}`])
        .stdout.trim();
    expect(run(domestic.url)).toBe(relay.address);
    expect(curl(domestic.url)).toBe(laptop.address);
    laptop.human('disconnect');
    expect(run(domestic.url)).toBe('');
    laptop.human('split', 'remove', '--app', tool);
    expect(laptop.json('split', 'list').rules).toEqual([]);
    // A path with no program is refused, naming it.
    const refused = laptop.run('split', 'add', '--app', '/nowhere/tool', '--via', 'direct');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/no program at \/nowhere\/tool/);
  }, 60_000);
});
