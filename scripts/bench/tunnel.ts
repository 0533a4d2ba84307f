// Tunnel benchmark: iperf3 throughput and ping RTT between two hosts joined by a direct veth, over
// the raw veth, wireguard-go, shadowsocks-libev (aes-256-gcm) and Ferry (UDP with each cipher, and
// TCP, TLS); then Ferry UDP again while a third party floods the node with initiations that pass every
// cheap check.
//
// Run it through `bash scripts/bench/tunnel [seconds per iperf3 run, default 10]` (installs and
// builds first). The table on stdout, progress on stderr. Everything runs on a TestNetwork
// (e2e/netns/test-network.ts), whose destroy removes every namespace, process and interface, also
// when a step fails or the run is interrupted.
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { IPERF_PORT, receivedBitsPerSecond, runIperf } from '../../e2e/netns/ferry-iperf.js';
import {
  CLIENT,
  FERRY_PORT,
  FERRY_TCP_PORT,
  FerryPair,
  REPO,
  SERVER,
  SERVER_TUNNEL,
  requireFerryBuilt,
} from '../../e2e/netns/ferry-process.js';
import { requireTools, sh, type ManagedProcess } from '../../e2e/netns/test-network.js';
import { onLinkedHosts, progress, runBench } from './bench-kit.js';

const USAGE = 'usage: scripts/bench/tunnel [seconds per iperf3 run, default 10]';
const FLOOD = path.join(REPO, 'native', 'build', 'ctest-release', 'ferry-flood');
const WG_PORT = 51821;
const SS_PORT = 8388;
const SS_LOCAL_PORT = 15201;
/** Ferry's TLS transport listens here (ferry-tun has no cover site: a stranger would be closed). */
const FERRY_TLS_PORT = 9443;
/** The flooder's sources: eight more addresses on the client's side of the link (a botnet behind one link). */
const FLOOD_SOURCES = [10, 11, 12, 13, 14, 15, 16, 17];
const VARIANTS = [
  'udp:aes-256-gcm',
  'udp:chacha20-poly1305',
  'tcp:aes-256-gcm',
  'tls:aes-256-gcm',
  'flood:aes-256-gcm',
] as const;

/** A process's stdout alone, as it comes (its output() holds stderr too). */
function collectStdout(p: ManagedProcess): () => string {
  let out = '';
  p.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  return () => out;
}

async function main(): Promise<number> {
  const arg = process.argv[2];
  const duration = arg === undefined ? 10 : Number(arg);
  if (!Number.isFinite(duration) || duration <= 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  requireTools(['ip', 'iperf3', 'ping', 'wireguard-go', 'wg', 'ss-server', 'ss-tunnel']);
  requireFerryBuilt();
  if (!existsSync(FLOOD)) throw new Error(`${FLOOD} missing: make -C native flood`);

  return onLinkedHosts(async (net, link) => {
    /** Runs argv on a host to its end, without blocking the event loop; its stdout. */
    const run = async (host: string, argv: readonly string[]): Promise<string> => {
      const p = net.spawn(host, argv[0]!, argv);
      const stdout = collectStdout(p);
      await p.exited;
      return stdout();
    };
    const S = link.a.address;
    const C = link.b;

    /** iperf3 client -> server for `duration` seconds; Gbit/s received (0.00 when it failed). */
    const throughput = async (host: string, port = IPERF_PORT, bind = host): Promise<string> => {
      const { report } = await runIperf(
        net,
        { server: SERVER, client: CLIENT, bind, target: host, port },
        ['-t', String(duration)],
      );
      return (receivedBitsPerSecond(report) / 1e9).toFixed(2);
    };

    /** Average RTT of 20 idle pings, in ms ('' when none came back). */
    const rtt = async (address: string): Promise<string> => {
      const out = await run(CLIENT, ['ping', '-q', '-c', '20', '-i', '0.05', '-W', '1', address]);
      const avg = /^rtt [^=]+= [\d.]+\/([\d.]+)\//m.exec(out)?.[1];
      return avg === undefined ? '' : Number(avg).toFixed(3);
    };

    /** Waits until a ping crosses the tunnel to `address`. */
    const reachable = (address: string) =>
      net.waitFor(`a ping through the tunnel to ${address}`, 10_000, () => {
        net.exec(CLIENT, ['ping', '-c', '1', '-W', '0.2', address]);
        return true;
      });

    const gbps: Record<string, string> = {};
    const rtts: Record<string, string> = {};

    progress('raw veth');
    gbps.veth = await throughput(S);
    rtts.veth = await rtt(S);

    progress('wireguard-go');
    {
      const key = (who: string) => {
        const k = sh('wg', ['genkey']);
        const file = path.join(net.dir, `wg-${who}.key`);
        writeFileSync(file, k, { mode: 0o600 });
        return { file, pub: sh('wg', ['pubkey'], k).trim() };
      };
      const ks = key('s');
      const kc = key('c');
      // Names under the network's prefix: destroy removes their UAPI sockets if they are left.
      const ifs = `fy${net.id}ws`;
      const ifc = `fy${net.id}wc`;
      const wgs = net.spawn(SERVER, 'wireguard-go', ['wireguard-go', '-f', ifs]);
      const wgc = net.spawn(CLIENT, 'wireguard-go', ['wireguard-go', '-f', ifc]);
      await net.waitFor('the wireguard-go UAPI sockets', 5000, () =>
        existsSync(`/run/wireguard/${ifs}.sock`) && existsSync(`/run/wireguard/${ifc}.sock`)
          ? true
          : undefined,
      );
      net.exec(SERVER, [
        'wg',
        'set',
        ifs,
        'listen-port',
        String(WG_PORT),
        'private-key',
        ks.file,
        'peer',
        kc.pub,
        'allowed-ips',
        '10.98.0.2/32',
      ]);
      net.exec(CLIENT, [
        'wg',
        'set',
        ifc,
        'private-key',
        kc.file,
        'peer',
        ks.pub,
        'allowed-ips',
        '10.98.0.1/32',
        'endpoint',
        `${S}:${WG_PORT}`,
      ]);
      for (const [host, dev, address] of [
        [SERVER, ifs, '10.98.0.1/24'],
        [CLIENT, ifc, '10.98.0.2/24'],
      ] as const) {
        net.exec(host, ['ip', 'address', 'add', address, 'dev', dev]);
        net.exec(host, ['ip', 'link', 'set', dev, 'mtu', '1420', 'up']);
      }
      rtts.wg = await rtt('10.98.0.1');
      gbps.wg = await throughput('10.98.0.1');
      await Promise.all([wgs.stop(), wgc.stop()]);
      await sleep(500);
    }

    progress('shadowsocks-libev');
    {
      const ss = ['-k', 'bench-password', '-m', 'aes-256-gcm'];
      const server = net.spawn(SERVER, 'ss-server', [
        'ss-server',
        '-s',
        S,
        '-p',
        String(SS_PORT),
        ...ss,
      ]);
      const tunnel = net.spawn(CLIENT, 'ss-tunnel', [
        'ss-tunnel',
        '-s',
        S,
        '-p',
        String(SS_PORT),
        '-b',
        '127.0.0.1',
        '-l',
        String(SS_LOCAL_PORT),
        '-L',
        `${S}:${IPERF_PORT}`,
        ...ss,
      ]);
      await sleep(500);
      gbps.ss = await throughput('127.0.0.1', SS_LOCAL_PORT, S);
      await Promise.all([server.stop(), tunnel.stop()]);
    }

    const ferry = FerryPair.create(net, { server: SERVER, client: CLIENT, serverAddress: S });
    const base = C.address.replace(/\.\d+$/, '');
    const sources = FLOOD_SOURCES.map((i) => `${base}.${i}`);
    for (const s of sources) net.exec(CLIENT, ['ip', 'address', 'add', `${s}/24`, 'dev', C.dev]);
    let floodFigures: string[] = [];
    let drops = '-';
    for (const variant of VARIANTS) {
      const [kind, cipher] = variant.split(':') as [string, string];
      const transport = kind === 'tcp' || kind === 'tls' ? kind : 'udp';
      progress(`ferry ${kind} ${cipher}`);
      const server = ferry.startServer([
        '--tcp-listen',
        `${S}:${FERRY_TCP_PORT}`,
        '--tls-listen',
        `${S}:${FERRY_TLS_PORT}`,
      ]);
      await sleep(500);
      const port = { tcp: FERRY_TCP_PORT, tls: FERRY_TLS_PORT, udp: FERRY_PORT }[transport];
      const client = ferry.startClient(
        [
          '--transport',
          transport,
          '--cipher',
          cipher,
          ...(transport === 'tls' ? ['--tls-server-name', 'www.example.com'] : []),
        ],
        `${S}:${port}`,
      );
      await reachable(SERVER_TUNNEL);
      let flood: ManagedProcess | undefined;
      let floodOut = () => '';
      if (kind === 'flood') {
        flood = net.spawn(CLIENT, 'ferry-flood', [
          FLOOD,
          S,
          String(FERRY_PORT),
          ferry.serverPublic,
          String(duration + 4),
          ...sources,
        ]);
        floodOut = collectStdout(flood);
        await sleep(1000);
      }
      rtts[`ferry-${variant}`] = await rtt(SERVER_TUNNEL);
      gbps[`ferry-${variant}`] = await throughput(SERVER_TUNNEL);
      if (flood) {
        await flood.exited;
        floodFigures = floodOut().trim().split(/\s+/);
      }
      await Promise.all([client.stop(), server.stop()]);
      if (kind === 'flood') {
        // What the node made of the flood: its last counters (initiations dropped unexamined or refused).
        const c = server.lastCounters();
        if (Object.keys(c).length)
          drops = `${c.handshakesDropped} over budget, ${c.authDropped} refused`;
      }
    }
    progress('');

    const cores = os.availableParallelism();
    const ratio = (a?: string, b?: string) => {
      const [x, y] = [Number(a), Number(b)];
      return x > 0 && y > 0 ? `${(x / y).toFixed(2)}x` : '-';
    };
    const row = (label: string, g = '', r = '', vs = '') =>
      `| ${label.padEnd(36)} | ${g.padStart(10)} | ${(r || '-').padStart(9)} | ${vs.padStart(8)} |`;
    const lines = [
      `Ferry tunnel benchmark: ${cores} cores, iperf3 -t ${duration} (one TCP stream, client -> server), 20 idle pings`,
      '',
      row('path', 'Gbit/s', 'RTT ms', 'vs wg-go'),
      '|--------------------------------------|------------|-----------|----------|',
      row('raw veth', gbps.veth, rtts.veth, ratio(gbps.veth, gbps.wg)),
      row('wireguard-go (Debian)', gbps.wg, rtts.wg, '1.00x'),
      row('shadowsocks-libev aes-256-gcm (TCP)', gbps.ss, 'n/a', ratio(gbps.ss, gbps.wg)),
      ...VARIANTS.filter((v) => !v.startsWith('flood')).map((v) => {
        const [transport, cipher] = v.split(':') as [string, string];
        const k = `ferry-${v}`;
        return row(
          `Ferry ${transport.toUpperCase()} ${cipher}`,
          gbps[k],
          rtts[k],
          ratio(gbps[k], gbps.wg),
        );
      }),
      row(
        'Ferry UDP aes-256-gcm, node flooded',
        gbps['ferry-flood:aes-256-gcm'],
        rtts['ferry-flood:aes-256-gcm'],
        ratio(gbps['ferry-flood:aes-256-gcm'], gbps.wg),
      ),
      '',
      `Flood: ${floodFigures[0] ?? '?'} initiations/s (${floodFigures[1] ?? '?'} Mbit/s) from ${FLOOD_SOURCES.length} sources, each with a valid mac1 and random`,
      `content (what anyone who read the node's public key can send); the node: ${drops}.`,
      `All of it on the same ${cores} cores as both tunnel ends, iperf3 and the flooder.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  });
}

runBench('bench', main);
