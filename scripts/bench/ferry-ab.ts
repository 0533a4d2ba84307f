// A/B of the Ferry data plane between two checkouts (each built: dist/ and the addon), alternating
// turns so that the machine's drift falls on both: per turn, one ferry-tun server and client on
// two hosts joined by a direct veth and RUNS iperf3 runs of 5 s (the first second left out), for
// each transport.
//
// Run it through `bash scripts/bench/ferry-ab A_REPO B_REPO [TURNS, default 3] [RUNS, default 3]`
// (builds this checkout first). The table on stdout, progress on stderr. Everything runs on a
// TestNetwork (e2e/netns/test-network.ts), whose destroy removes every namespace, process and
// interface, also when a step fails or the run is interrupted.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { receivedBitsPerSecond, runIperf } from '../../e2e/netns/ferry-iperf.js';
import {
  CLIENT,
  FERRY_PORT,
  FERRY_TCP_PORT,
  FerryPair,
  SERVER,
  SERVER_TUNNEL,
  requireFerryBuilt,
} from '../../e2e/netns/ferry-process.js';
import { requireTools } from '../../e2e/netns/test-network.js';
import { onLinkedHosts, progress, runBench } from './bench-kit.js';

const USAGE = 'usage: scripts/bench/ferry-ab A_REPO B_REPO [TURNS, default 3] [RUNS, default 3]';
const TRANSPORTS = ['udp', 'tcp'] as const;
const SIDES = ['A', 'B'] as const;

function count(arg: string | undefined, fallback: number): number {
  if (arg === undefined) return fallback;
  const n = Number(arg);
  return Number.isInteger(n) && n > 0 ? n : NaN;
}

function shortHead(repo: string): string {
  const r = spawnSync('git', ['-C', repo, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '?';
}

async function main(): Promise<number> {
  const [a, b, turnsArg, runsArg] = process.argv.slice(2);
  const turns = count(turnsArg, 3);
  const runs = count(runsArg, 3);
  if (a === undefined || b === undefined || Number.isNaN(turns) || Number.isNaN(runs)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const repos = { A: path.resolve(a), B: path.resolve(b) };
  requireTools(['ip', 'iperf3', 'ping']);
  for (const repo of Object.values(repos)) requireFerryBuilt(repo);

  return onLinkedHosts(async (net, link) => {
    const S = link.a.address;

    /** One turn of a checkout on a transport: RUNS figures in Gbit/s (0 for a failed run). */
    const turn = async (repo: string, transport: 'udp' | 'tcp'): Promise<number[]> => {
      const ferry = FerryPair.create(net, {
        server: SERVER,
        client: CLIENT,
        serverAddress: S,
        ferryTun: path.join(repo, 'bin', 'ferry-tun'),
      });
      const server = ferry.startServer(['--tcp-listen', `${S}:${FERRY_TCP_PORT}`]);
      await sleep(500);
      const port = transport === 'tcp' ? FERRY_TCP_PORT : FERRY_PORT;
      const client = ferry.startClient(['--transport', transport], `${S}:${port}`);
      try {
        await net.waitFor(`a ping through the ${transport} tunnel`, 10_000, () => {
          net.exec(CLIENT, ['ping', '-c', '1', '-W', '0.2', SERVER_TUNNEL]);
          return true;
        });
        const figures: number[] = [];
        for (let i = 0; i < runs; i++) {
          const { report } = await runIperf(net, { server: SERVER, client: CLIENT }, [
            '-t',
            '5',
            '-O',
            '1',
          ]);
          figures.push(Number((receivedBitsPerSecond(report) / 1e9).toFixed(2)));
        }
        return figures;
      } finally {
        await Promise.all([client.stop(), server.stop()]);
      }
    };

    const all: Record<string, number[]> = {};
    for (const transport of TRANSPORTS) {
      for (let t = 1; t <= turns; t++) {
        progress(`${transport} turn ${t}/${turns}`);
        for (const side of SIDES)
          (all[`${side}-${transport}`] ??= []).push(...(await turn(repos[side], transport)));
      }
    }
    progress('');

    const lines = [
      `Ferry A/B: ${os.availableParallelism()} cores, ${turns} alternating turns x ${runs} iperf3 runs of 5 s per side and transport`,
      `A = ${repos.A} (${shortHead(repos.A)})`,
      `B = ${repos.B} (${shortHead(repos.B)})`,
      '',
      `| ${'transport'.padEnd(9)} | ${'side'.padEnd(5)} | ${'mean'.padStart(8)} | ${'stdev'.padStart(8)} | runs (Gbit/s)`,
      '|-----------|-------|----------|----------|------',
    ];
    for (const transport of TRANSPORTS) {
      for (const side of SIDES) {
        // Failed runs (0) are left out of the figures, as they were always.
        const v = (all[`${side}-${transport}`] ?? []).filter((x) => x > 0);
        const m = v.reduce((x, y) => x + y, 0) / (v.length || 1);
        const sd = Math.sqrt(v.reduce((x, y) => x + (y - m) ** 2, 0) / Math.max(1, v.length - 1));
        lines.push(
          `| ${transport.padEnd(9)} | ${side.padEnd(5)} | ${m.toFixed(2).padStart(8)} | ${sd.toFixed(2).padStart(8)} | ${v.join(' ')}`,
        );
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  });
}

runBench('ferry-ab', main);
