// Domestic stays domestic, by name: a laptop at home (its ISP's resolver in its resolv.conf)
// connected to a relay abroad whose resolver asks another authority. A "CDN" name answers a
// domestic edge through the tunnel's resolver and a nearer one at home: the laptop reaches the
// nearer one directly. A foreign name is asked through the tunnel only. A capture at the home
// resolver holds the domestic name alone, asked after the tunnel's resolver, without a Client
// Subnet. Split rules by domain send a domestic site through the tunnel and a foreign one
// directly, and hold when the name's addresses change.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PROXY_ADDRESS } from '../../engine/dns/dns-proxy.js';
import { queryFrom, startDnsAuthority, TEST_ZONE, type DnsAuthority } from './dns-authority.js';
import { NetcliHost } from './netcli-host.js';
import { readPcapUdp } from './pcap.js';
import { Testbed, type RelayHandle } from './testbed.js';

const HOME = 'DE';

interface Echo {
  address: string;
  url: string;
}

describe('split by DNS: domestic names at their domestic edge, directly', () => {
  let bed: Testbed;
  let laptop: NetcliHost;
  let relay: RelayHandle;
  let world: DnsAuthority;
  let home: DnsAuthority;
  let near: Echo;
  let far: Echo;
  let abroad: Echo;
  let abroad2: Echo;
  let domestic2: Echo;

  /** curl from the laptop: the address it connected to and what the echo service saw. */
  const fetchName = (name: string): { remote: string; seen: string } => {
    const out = bed.net.exec('laptop', [
      'curl',
      '-s',
      '--max-time',
      '5',
      '-w',
      '\n%{remote_ip}',
      `http://${name}.${TEST_ZONE}:${new URL(near.url).port}/`,
    ]);
    const [seen, remote] = out.trim().split('\n');
    return { remote: remote ?? '', seen: seen ?? '' };
  };

  beforeAll(async () => {
    bed = await Testbed.start({ controlPlaneOn: 'servers' });
    const net = bed.net;
    near = await bed.startEcho('edge-near');
    far = await bed.startEcho('edge-far');
    abroad = await bed.startEcho('abroad');
    abroad2 = await bed.startEcho('abroad2');
    domestic2 = await bed.startEcho('domestic2');
    // The world's authority (the relay's resolver asks it) and the laptop's ISP's resolver:
    // the CDN name has another domestic edge in each; the foreign names only abroad.
    world = await startDnsAuthority(bed, 'dns-world', {
      wildcard: '192.0.2.53',
      ttl: 1,
      records: {
        cdn: far.address,
        shop: domestic2.address,
        news: abroad.address,
        video: abroad2.address,
      },
    });
    home = await startDnsAuthority(bed, 'dns-home', {
      wildcard: '192.0.2.54',
      ttl: 1,
      records: {
        cdn: near.address,
        shop: domestic2.address,
        news: abroad.address,
        video: abroad2.address,
      },
    });
    relay = await bed.addRelay('tokyo', 'asia-east', { ferry: true, dnsUpstream: world.address });
    const geoip = path.join(net.dir, 'geoip.csv');
    laptop = await NetcliHost.start(bed, 'laptop', {
      daemonArgs: ['--geoip-file', geoip],
      prepare: (address) => {
        writeFileSync(
          geoip,
          [
            `${address}/32,${HOME}`,
            `${near.address}/32,${HOME}`,
            `${far.address}/32,${HOME}`,
            `${domestic2.address}/32,${HOME}`,
            `${home.address}/32,${HOME}`,
            '',
          ].join('\n'),
        );
        // Before the tunnel the laptop resolves through its ISP's resolver.
        net.setEtcFile('laptop', 'resolv.conf', `nameserver ${home.address}\n`);
      },
    });
    laptop.human('init', '--protocol', 'wireguard', ...bed.endpointArgs());
    laptop.human('account', 'create', '--device-name', 'laptop');
  }, 180_000);

  afterAll(async () => {
    await laptop?.stop();
    await bed?.stop();
  }, 60_000);

  it('reaches a domestic CDN name at the home resolver’s edge directly, a foreign name through the tunnel; the home resolver hears the domestic name alone', async () => {
    const capture = path.join(bed.net.dir, 'home-dns.pcap');
    const stopCapture = await bed.net.capture('dns-home', 'eth0', 'port 53', capture, {
      maxSeconds: 120,
    });
    const connected = laptop.json('connect', '--region', 'asia-east');
    expect(connected.status).toBe('connected');
    expect(connected.protection).toMatchObject({ split: 'by-country', home_country: HOME });
    // The system resolver is the engine's.
    expect(bed.net.exec('laptop', ['cat', '/etc/resolv.conf'])).toMatch(
      new RegExp(`^nameserver ${PROXY_ADDRESS.replaceAll('.', '\\.')}$`, 'm'),
    );

    // The CDN name: the nearer domestic edge (the home resolver's), reached directly.
    const cdn = fetchName('cdn');
    expect(cdn).toEqual({ remote: near.address, seen: laptop.address });
    // A foreign name: the world's answer, reached through the relay; never asked at home.
    const news = fetchName('news');
    expect(news).toEqual({ remote: abroad.address, seen: relay.address });

    // A query with a Client Subnet of the laptop's: the subnet goes nowhere, and the answer
    // carries none back.
    const withSubnet = queryFrom(bed, 'laptop', PROXY_ADDRESS, `cdn.${TEST_ZONE}`, {
      subnet: '203.0.113.0/24',
    });
    expect(withSubnet?.addresses).toEqual([near.address]);
    expect(withSubnet?.ecs).toBe(false);
    const tcp = queryFrom(bed, 'laptop', PROXY_ADDRESS, `news.${TEST_ZONE}`, { transport: 'tcp' });
    expect(tcp?.addresses).toEqual([abroad.address]);
    await new Promise((r) => setTimeout(r, 1_000));
    await stopCapture();

    // The tunnel's resolver was asked first (through the relay), then the home resolver (A only), from
    // the laptop's own address, without a Client Subnet either way.
    const worldAsked = world.queriesFor(`cdn.${TEST_ZONE}`).filter((q) => q.type === 'A');
    const homeAsked = home.queriesFor(`cdn.${TEST_ZONE}`);
    expect(new Set(worldAsked.map((q) => q.from))).toEqual(new Set([relay.address]));
    expect(new Set(homeAsked.map((q) => q.from))).toEqual(new Set([laptop.address]));
    expect(homeAsked.every((q) => q.type === 'A')).toBe(true);
    expect(homeAsked[0]!.at).toBeGreaterThanOrEqual(worldAsked[0]!.at);
    expect([...worldAsked, ...homeAsked].some((q) => q.ecs)).toBe(false);
    expect(home.queriesFor(`news.${TEST_ZONE}`)).toEqual([]);
    expect(new Set(world.queriesFor(`news.${TEST_ZONE}`).map((q) => q.from))).toEqual(
      new Set([relay.address]),
    );

    // The capture at the home resolver: the domestic name's questions and their answers, one
    // peer (the laptop), no other name, no Client Subnet.
    const packets = readPcapUdp(capture);
    const questions = packets
      .filter((p) => p.dport === 53)
      .map((p) => {
        const q = dnsPacket.decode(p.payload);
        return {
          from: p.src,
          name: q.questions?.[0]?.name.toLowerCase(),
          ecs: (q.additionals ?? []).some(
            (a) => a.type === 'OPT' && a.options.some((o) => o.code === 8),
          ),
        };
      });
    expect(questions.length).toBeGreaterThan(0);
    expect(new Set(questions.map((q) => q.from))).toEqual(new Set([laptop.address]));
    expect(new Set(questions.map((q) => q.name))).toEqual(new Set([`cdn.${TEST_ZONE}`]));
    expect(questions.some((q) => q.ecs)).toBe(false);
    expect(packets.every((p) => p.src === laptop.address || p.dst === laptop.address)).toBe(true);
  }, 120_000);

  it('a domain rule sends a domestic site through the tunnel and a foreign one directly, and holds when their addresses change', async () => {
    // Before the rules: the domestic shop directly, the foreign video through the relay.
    expect(fetchName('shop')).toEqual({ remote: domestic2.address, seen: laptop.address });
    expect(fetchName('video')).toEqual({ remote: abroad2.address, seen: relay.address });

    expect(
      laptop.human('split', 'add', '--domain', `shop.${TEST_ZONE}`, '--via', 'tunnel'),
    ).toContain('through the tunnel');
    laptop.human('split', 'add', '--domain', `*.Video.${TEST_ZONE}.`, '--via', 'Direct');
    expect(laptop.json('split', 'list').rules).toEqual([
      { domain: `shop.${TEST_ZONE}`, via: 'tunnel' },
      { domain: `video.${TEST_ZONE}`, via: 'direct' },
    ]);
    expect(fetchName('shop')).toEqual({ remote: domestic2.address, seen: relay.address });
    expect(fetchName('video')).toEqual({ remote: abroad2.address, seen: laptop.address });
    // A tunnel rule's name is never asked at home, however domestic its answer.
    expect(home.queriesFor(`shop.${TEST_ZONE}`)).toEqual([]);

    // The names move to other addresses (a CDN's edges change): the rules follow them.
    world.setRecord('shop', near.address);
    home.setRecord('shop', near.address);
    world.setRecord('video', abroad.address);
    home.setRecord('video', abroad.address);
    // Once the old answers' TTL (1 s) is over, the new addresses come with the rules' way.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(fetchName('shop')).toEqual({ remote: near.address, seen: relay.address });
    expect(fetchName('video')).toEqual({ remote: abroad.address, seen: laptop.address });
    // Without the video rule the same foreign address is tunneled again at once.
    expect(laptop.human('split', 'remove', '--domain', `video.${TEST_ZONE}`)).toContain('removed');
    expect(fetchName('video')).toEqual({ remote: abroad.address, seen: relay.address });
  }, 120_000);

  it('with split off every name goes to the tunnel’s resolver and nothing to the home resolver', async () => {
    laptop.human('split', 'remove', '--domain', `shop.${TEST_ZONE}`);
    laptop.human('config', 'set', 'split', 'off');
    const before = home.queriesFor(`cdn.${TEST_ZONE}`).length;
    home.setRecord('cdn', near.address);
    expect(fetchName('cdn')).toEqual({ remote: far.address, seen: relay.address });
    expect(home.queriesFor(`cdn.${TEST_ZONE}`).length).toBe(before);
    laptop.human('config', 'set', 'split', 'auto');
    laptop.human('disconnect');
    // Back as it was: the ISP's resolver in resolv.conf.
    expect(bed.net.exec('laptop', ['cat', '/etc/resolv.conf'])).toBe(
      `nameserver ${home.address}\n`,
    );
    expect(laptop.leftovers()).toEqual([]);
  }, 90_000);
});
