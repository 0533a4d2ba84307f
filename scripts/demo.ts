// The five-minute tour: a namespace internet, the control plane, relays in two regions and a
// laptop that runs `netcli daemon`; then the netcli commands a user types, with their output.
// Cleans up after itself.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Testbed } from '../e2e/netns/testbed.js';

/** The repository root, from scripts/ (sources) or dist/scripts/ (built). */
function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

const NETCLI = path.join(repoRoot(), 'bin/netcli');
const LAPTOP = 'laptop';
const step = (line: string) => process.stderr.write(`… ${line}\n`);
const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  step('building a small internet of network namespaces, starting the control plane');
  const bed = await Testbed.start({ controlPlaneOn: 'servers' });
  const stop = () => {
    void bed.stop().then(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    step('starting relays in asia-east and global (WireGuard and Ferry)');
    await bed.addRelay('tokyo', 'asia-east', { ferry: true });
    await bed.addRelay('zurich', 'global', { ferry: true });
    bed.net.addAccessHost(LAPTOP);
    // The laptop's own resolv.conf, which the engine points at the tunnel while connected (never
    // this machine's).
    bed.net.setEtcFile(LAPTOP, 'resolv.conf', `nameserver ${bed.net.accessGateway}\n`);
    const dir = path.join(bed.net.dir, 'laptop');
    mkdirSync(dir, { recursive: true });
    const socket = path.join(dir, 'engine.sock');
    step('starting netcli daemon on the laptop');
    const daemon = bed.net.spawn(LAPTOP, 'netcli-daemon', [
      process.execPath,
      NETCLI,
      'daemon',
      '--socket',
      socket,
      '--state-dir',
      path.join(dir, 'state'),
    ]);
    await bed.net.waitFor('the engine', 15_000, () => (existsSync(socket) ? true : undefined));

    /** Runs one netcli command on the laptop and shows it as a user sees it. */
    const netcli = (...args: string[]) => {
      say(`\n$ netcli ${args.join(' ')}`);
      const r = spawnSync(
        'ip',
        ['netns', 'exec', bed.net.host(LAPTOP).ns, process.execPath, NETCLI, ...args],
        { encoding: 'utf8', env: { ...process.env, FERRY_SOCKET: socket }, timeout: 60_000 },
      );
      process.stdout.write(r.stdout + r.stderr);
      if (r.status !== 0) throw new Error(`netcli ${args[0]} exited ${r.status}`);
    };

    say(`control plane ${bed.controlUrl}, echo service ${bed.echoUrl}`);
    say(`the laptop's own address: ${bed.echoFrom(LAPTOP)}`);
    netcli('init', '--protocol', 'wireguard', ...bed.endpointArgs('/api/v1'));
    netcli('account', 'create');
    // Every node measured before connecting: once connected, no probe leaves beside the tunnel.
    netcli('latency-check', '--all');
    netcli('connect', '--region', 'asia-east');
    say(`(the echo service now sees ${bed.echoFrom(LAPTOP)})`);
    netcli('status');
    netcli('config', 'set', 'protocol', 'ferry');
    netcli('connect', '--region', 'global');
    say(`(the echo service now sees ${bed.echoFrom(LAPTOP)})`);
    netcli('region', 'list');
    netcli('diagnose');
    netcli('disconnect');
    say(`(the echo service sees ${bed.echoFrom(LAPTOP)} again)`);
    await daemon.stop();
  } finally {
    step('cleaning up');
    await bed.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`demo failed: ${(e as Error).message}\n`);
  process.exit(1);
});
