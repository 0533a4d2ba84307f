// ferry-tun: the Ferry protocol's own command (keygen, pubkey, server, client) over the native data plane.
import { readFileSync } from 'node:fs';

import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';

import { loadHelloTemplate } from './hello-template.js';
import {
  NativeTunnelError,
  isBase64Key,
  isIPv4,
  nativeDataPlane,
  type Cipher,
  type ServerPeer,
  type Transport,
  type DataPlane,
  type Tunnel,
  type TunnelEvent,
} from './index.js';

interface HostPort {
  host: string;
  port: number;
}

export function parseHostPort(text: string): HostPort {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(text) ?? /^([^:\s]+):(\d+)$/.exec(text);
  const port = m?.[2] !== undefined ? Number(m[2]) : NaN;
  if (!m?.[1] || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new InvalidArgumentError('expected HOST:PORT with a port from 1 to 65535');
  }
  return { host: m[1], port };
}

/** A peer from PUBKEY=ADDR/32; its id is its tunnel address (unique, and stable across reloads). */
export function parsePeer(text: string, previous: ServerPeer[] = []): ServerPeer[] {
  // The key's base64 ends in '=', so the separator is the last '='.
  const at = text.lastIndexOf('=');
  const key = text.slice(0, at);
  const addr = text.slice(at + 1);
  const [ip, prefix, ...rest] = addr.split('/');
  if (
    at < 0 ||
    !isBase64Key(key) ||
    rest.length > 0 ||
    ip === undefined ||
    !isIPv4(ip) ||
    prefix !== '32'
  ) {
    throw new InvalidArgumentError(
      'expected PUBKEY=ADDR/32 with a base64 public key and an IPv4 address',
    );
  }
  return [...previous, { id: ip, publicKey: key, address: ip }];
}

function intIn(lo: number, hi: number) {
  return (text: string): number => {
    const n = Number(text);
    if (!/^\d+$/.test(text) || !Number.isInteger(n) || n < lo || n > hi) {
      throw new InvalidArgumentError(`expected an integer from ${lo} to ${hi}`);
    }
    return n;
  };
}

/** A peers file read line by line: the well-formed lines, and what is wrong with the others. */
export function scanPeersFile(file: string): { peers: ServerPeer[]; problems: string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { peers: [], problems: [`cannot read peers file ${file}: ${why}`] };
  }
  let peers: ServerPeer[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) return;
    try {
      peers = parsePeer(line, peers);
    } catch {
      problems.push(`${file} line ${i + 1}: expected PUBKEY=ADDR/32`);
    }
  });
  return { peers, problems };
}

/** A peers file that must be entirely valid (start-up: a typo should stop the server, not start it). */
export function readPeersFile(file: string): ServerPeer[] {
  const { peers, problems } = scanPeersFile(file);
  if (problems.length > 0) throw new NativeTunnelError('ERR_FERRY_OPTIONS', problems[0]!);
  return peers;
}

function readPrivateKey(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new NativeTunnelError('ERR_FERRY_KEY', `cannot read private key file ${file}`, {
      cause: err,
    });
  }
  if (!isBase64Key(text))
    throw new NativeTunnelError(
      'ERR_FERRY_KEY',
      `${file} does not hold a base64 32-byte private key`,
    );
  return text;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function formatEvent(e: TunnelEvent): string {
  switch (e.type) {
    case 'state':
      return `state ${e.state}`;
    case 'rtt':
      return `rtt ${e.rttMs.toFixed(2)} ms`;
    case 'rekey':
      return `keys rotated (${e.cipher})`;
    case 'peer':
      return `peer ${e.peer} connected (${e.cipher})`;
    case 'warning':
      return `warning: ${e.message}`;
    case 'transport':
      return `${e.transport} connection attempt: ${e.outcome}`;
    case 'path':
      return `the race chose ${e.transport}`;
    case 'error':
      return `error: ${e.message}`;
    case 'counters':
      return `tx ${e.counters.txPackets} pkts, rx ${e.counters.rxPackets} pkts, dropped ${e.counters.dropped}`;
  }
}

// Runs a tunnel in the foreground until SIGTERM/SIGINT, then closes it (threads joined, interface removed).
// A tunnel that fails (a data-plane thread stopped) or that `attach` gives up on ends the command with an
// error instead of leaving a process that looks alive and carries nothing.
function runUntilSignal<T extends Tunnel>(
  start: (onEvent: (e: TunnelEvent) => void) => T,
  json: boolean,
  attach?: (tunnel: T, fail: (why: string) => void) => () => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let lastError = 'a data-plane thread stopped';
    let done = false;
    const finish = (failure?: string): void => {
      if (done) return;
      done = true;
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      detach?.();
      tunnel.close();
      if (failure === undefined) resolve();
      else reject(new NativeTunnelError('ERR_FERRY_START', failure));
    };
    const onSignal = (): void => finish();
    const onEvent = (e: TunnelEvent): void => {
      if (json) process.stdout.write(`${JSON.stringify(e)}\n`);
      else if (e.type !== 'counters') process.stderr.write(`ferry-tun: ${formatEvent(e)}\n`);
      if (e.type === 'error') lastError = e.message;
      // Events arrive on the event loop, after start() has returned.
      if (e.type === 'state' && e.state === 'failed') finish(`the tunnel failed: ${lastError}`);
    };
    // finish() runs only after these two are set: events and signals arrive on later turns of the loop.
    const tunnel = start(onEvent);
    const detach = attach?.(tunnel, (why) => finish(why));
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

export function buildProgram(plane: DataPlane): Command {
  const program = new Command('ferry-tun')
    .description('Run the Ferry encrypted tunnel (see docs/protocol.md)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

  program
    .command('keygen')
    .description('print a new base64 private key')
    .action(() => {
      process.stdout.write(`${plane.generatePrivateKey()}\n`);
    });

  program
    .command('pubkey')
    .description('read a base64 private key on stdin and print its public key')
    .action(async () => {
      process.stdout.write(`${plane.publicKey((await readStdin()).trim())}\n`);
    });

  program
    .command('server')
    .description('run a Ferry server in the foreground until SIGTERM')
    .requiredOption('--interface <name>', 'TUN interface to create')
    .requiredOption('--address <cidr>', 'tunnel address of the server, e.g. 10.77.0.1/24')
    .requiredOption('--listen <host:port>', 'UDP address to listen on', parseHostPort)
    .option('--tcp-listen <host:port>', 'TCP address to listen on (TCP transport)', parseHostPort)
    .option(
      '--tls-listen <host:port>',
      "TCP address to listen on (TLS transport; strangers' connections are closed: no cover site here)",
      parseHostPort,
    )
    .option(
      '--tcp-auth-timeout <ms>',
      'close unauthenticated TCP connections this long after accept',
      intIn(100, 600000),
      10000,
    )
    .requiredOption('--private-key <file>', 'file holding the base64 private key')
    .option(
      '--peer <pubkey=addr/32>',
      'an allowed client and its tunnel address (repeatable)',
      parsePeer,
    )
    .option(
      '--peers-file <file>',
      'more peers, one PUBKEY=ADDR/32 per line (# comments); re-read on SIGHUP',
    )
    .option('--mtu <n>', 'tunnel MTU', intIn(576, 9000), 1420)
    .option('--json', 'print events as JSON lines on stdout')
    .action(
      async (o: {
        interface: string;
        address: string;
        listen: HostPort;
        tcpListen?: HostPort;
        tlsListen?: HostPort;
        tcpAuthTimeout: number;
        privateKey: string;
        peer?: ServerPeer[];
        peersFile?: string;
        mtu: number;
        json?: boolean;
      }) => {
        if (!o.peer && !o.peersFile) {
          process.stderr.write('error: give --peer or --peers-file\n');
          throw new CommanderError(2, 'ferry-tun.peers', 'give --peer or --peers-file');
        }
        const privateKey = readPrivateKey(o.privateKey);
        const initial = [...(o.peer ?? []), ...(o.peersFile ? readPeersFile(o.peersFile) : [])];
        await runUntilSignal(
          (onEvent) =>
            plane.startServer(
              {
                interfaceName: o.interface,
                address: o.address,
                mtu: o.mtu,
                privateKey,
                listenHost: o.listen.host,
                listenPort: o.listen.port,
                ...(o.tcpListen
                  ? { tcpListenHost: o.tcpListen.host, tcpListenPort: o.tcpListen.port }
                  : {}),
                ...(o.tlsListen
                  ? { tlsListenHost: o.tlsListen.host, tlsListenPort: o.tlsListen.port }
                  : {}),
                tcpAuthTimeoutMs: o.tcpAuthTimeout,
                peers: initial,
              },
              onEvent,
            ),
          o.json === true,
          (tunnel, fail) => {
            // SIGHUP re-reads the peers: rotation and revocation without a restart. It fails
            // closed: a peer whose line is unreadable is not kept, and every problem is reported.
            const reload = (): void => {
              const scanned = o.peersFile
                ? scanPeersFile(o.peersFile)
                : { peers: [], problems: [] as string[] };
              const problems = [...scanned.problems];
              try {
                const { rejected } = tunnel.setPeers([...(o.peer ?? []), ...scanned.peers]);
                for (const r of rejected) problems.push(`peer ${r.id}: ${r.reason}`);
              } catch (err) {
                // Not even the removals could be applied: stop serving rather than keep revoked peers.
                const why = err instanceof Error ? err.message : String(err);
                fail(`peers not reloaded, stopping: ${why}`);
                return;
              }
              for (const p of problems) process.stderr.write(`ferry-tun: ${p}\n`);
              process.stderr.write(
                problems.length === 0
                  ? 'ferry-tun: peers reloaded\n'
                  : `ferry-tun: peers reloaded with ${problems.length} problem(s): those peers are not allowed\n`,
              );
            };
            process.on('SIGHUP', reload);
            return () => process.off('SIGHUP', reload);
          },
        );
      },
    );

  program
    .command('client')
    .description('run a Ferry client in the foreground until SIGTERM')
    .requiredOption('--interface <name>', 'TUN interface to create')
    .requiredOption('--address <cidr>', 'tunnel address of this device, e.g. 10.77.0.2/24')
    .requiredOption('--server <host:port>', 'the server UDP address', parseHostPort)
    .requiredOption('--server-public-key <pub>', 'the server public key (base64)')
    .requiredOption('--private-key <file>', 'file holding the base64 private key')
    .addOption(
      new Option(
        '--transport <t>',
        'udp, tcp where UDP is blocked, or tls where only web-like TLS passes (then --server is the TCP or TLS address)',
      )
        .choices(['udp', 'tcp', 'tls'])
        .default('udp'),
    )
    .option(
      '--tls-server-name <name>',
      "the name in the TLS hello (the node's cover site); required with --transport tls",
    )
    .option(
      '--race-udp <port>',
      "with --transport tcp or tls: race a UDP path to the server's UDP port beside it; the first answered wins",
      intIn(1, 65535),
    )
    .addOption(
      new Option('--cipher <c>', 'data cipher')
        .choices(['aes-256-gcm', 'chacha20-poly1305'])
        .default('aes-256-gcm'),
    )
    .option(
      '--rekey-seconds <n>',
      'rotate session keys after N seconds (1-120)',
      intIn(1, 120),
      120,
    )
    .option('--rekey-packets <n>', 'rotate session keys after N packets', intIn(16, 2 ** 50))
    .option('--keepalive-seconds <n>', 'encrypted ping interval (RTT readout)', intIn(1, 60), 5)
    .option('--mtu <n>', 'tunnel MTU', intIn(576, 9000), 1420)
    .option(
      '--fwmark <n>',
      "mark the tunnel's own packets, for a policy rule that routes them around the tunnel",
      intIn(0, 2 ** 32 - 1),
    )
    .option('--json', 'print events as JSON lines on stdout')
    .action(
      async (o: {
        interface: string;
        address: string;
        server: HostPort;
        serverPublicKey: string;
        privateKey: string;
        transport: Transport;
        tlsServerName?: string;
        raceUdp?: number;
        cipher: Cipher;
        rekeySeconds: number;
        rekeyPackets?: number;
        keepaliveSeconds: number;
        mtu: number;
        fwmark?: number;
        json?: boolean;
      }) => {
        if (!isBase64Key(o.serverPublicKey))
          throw new NativeTunnelError(
            'ERR_FERRY_KEY',
            '--server-public-key is not a base64 32-byte key',
          );
        if ((o.transport === 'tls') !== (o.tlsServerName !== undefined))
          throw new NativeTunnelError(
            'ERR_FERRY_OPTIONS',
            '--tls-server-name goes with --transport tls, and only with it',
          );
        if (o.raceUdp !== undefined && o.transport === 'udp')
          throw new NativeTunnelError(
            'ERR_FERRY_OPTIONS',
            '--race-udp races UDP beside --transport tcp or tls',
          );
        const privateKey = readPrivateKey(o.privateKey);
        const tls =
          o.tlsServerName !== undefined
            ? { serverName: o.tlsServerName, hello: loadHelloTemplate() }
            : undefined;
        await runUntilSignal(
          (onEvent) =>
            plane.startClient(
              {
                interfaceName: o.interface,
                address: o.address,
                mtu: o.mtu,
                privateKey,
                serverHost: o.server.host,
                serverPort: o.server.port,
                serverPublicKey: o.serverPublicKey,
                cipher: o.cipher,
                rekeySeconds: o.rekeySeconds,
                ...(o.rekeyPackets !== undefined ? { rekeyPackets: o.rekeyPackets } : {}),
                keepaliveSeconds: o.keepaliveSeconds,
                transport: o.transport,
                ...(tls ? { tls } : {}),
                ...(o.raceUdp !== undefined ? { raceUdpPort: o.raceUdp } : {}),
                ...(o.fwmark !== undefined ? { fwmark: o.fwmark } : {}),
              },
              onEvent,
            ),
          o.json === true,
        );
      },
    );

  return program;
}

/** Runs the command line; returns the process exit code (0 ok, 1 failure, 2 usage error). */
export async function main(argv: string[], plane: DataPlane = nativeDataPlane): Promise<number> {
  try {
    await buildProgram(plane).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander already printed the message; help and version requests are not failures.
      return err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.exitCode === 0
        ? 0
        : 2;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`ferry-tun: ${message}\n`);
    return 1;
  }
}
