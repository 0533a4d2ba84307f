// `ferry-relay`: the agent on every regional node, in the foreground until SIGTERM.
import { X509Certificate } from 'node:crypto';
import net from 'node:net';
import { Command, InvalidArgumentError } from 'commander';

import { optionFileText, platformsFileOption } from '../platform/options/option-files.js';
import { pino } from 'pino';
import {
  certificateBlocks,
  isLoopbackService,
  SHIPPED_PLATFORMS,
  type PlatformTable,
} from '../contracts/index.js';
import { startRelay } from './agent.js';
import { isGatewayAddress, systemNameservers, upstreamsOf } from './dns/upstreams.js';
import {
  parseCoverSite,
  parseTlsServerName,
  tlsTransportOptions,
  type CoverSite,
  type TlsTransportOptions,
} from './ferry/tls-options.js';
import { parseAllowedNetwork } from './nat/networks.js';
import { DEFAULT_PLATFORM_CHECK_SECONDS } from './platforms/platform-checker.js';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    throw new InvalidArgumentError('a port number 1-65535');
  return n;
}

/** An option parser from a function that throws an Error saying what is wrong. */
function optionParser<T>(parse: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
  };
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a number of seconds above 0');
  return n;
}

function addresses(value: string): string[] {
  const list = value
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  for (const a of list) {
    if (net.isIP(a) === 0) throw new InvalidArgumentError(`${a} is not an IP address`);
    if (isGatewayAddress(a))
      throw new InvalidArgumentError(`${a} is the relay's own resolver: it would ask itself`);
  }
  if (list.length === 0)
    throw new InvalidArgumentError('one or more IP addresses, comma-separated');
  return list;
}

/** One more network devices may reach (the option repeats). */
function allowNetwork(value: string, previous: string[] = []): string[] {
  try {
    return [...previous, parseAllowedNetwork(value)];
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

/** The certificates of a CA file (PEM), read at start. */
function caFile(file: string): string {
  const text = optionFileText(file);
  // Only the certificates: a bundle may hold comments, and a key beside them is never used.
  const blocks = certificateBlocks(text);
  if (blocks.length === 0) throw new InvalidArgumentError('no PEM certificate in it');
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      throw new InvalidArgumentError('a block is not a valid X.509 certificate');
    }
  }
  return `${blocks.join('\n')}\n`;
}

const program = new Command('ferry-relay')
  .description('Ferry relay node: WireGuard peers from the control plane, NAT out of the uplink')
  .requiredOption('--control-url <url>', 'the control plane, e.g. https://ferry.example')
  .option(
    '--ca-file <file>',
    "CA certificates (PEM) that sign the control plane's certificate, for a private CA",
    caFile,
  )
  .option(
    '--insecure',
    'accept a plain http:// control plane beyond this machine (unsafe: the node token and the peers travel in the clear)',
  )
  .requiredOption('--wireguard-port <port>', 'UDP port of the WireGuard interface', port)
  .requiredOption('--uplink <iface>', 'the interface towards the internet (NAT goes out of it)')
  .option('--node-token <token>', 'the node token from POST /admin/nodes (or FERRY_NODE_TOKEN)')
  .option('--ferry-port <port>', 'UDP and TCP port of the Ferry protocol server', port)
  .option(
    '--tls-port <port>',
    'TCP port of the TLS transport (needs --ferry-port and --cover-site): to anyone who does not authenticate, it is the cover site',
    port,
  )
  .option(
    '--cover-site <host[:port]>',
    'the real HTTPS site strangers on the TLS port are handed to (port 443 unless given; a name is looked up at start)',
    optionParser(parseCoverSite),
  )
  .option(
    '--tls-server-name <name>',
    "the name clients put in their TLS hello (default: --cover-site's host, which must then be a name)",
    optionParser(parseTlsServerName),
  )
  .option('--state-dir <dir>', 'where the key pair is kept', '/var/lib/ferry-relay')
  .option('--interface <name>', 'WireGuard interface name (unique per machine)', 'ferry0')
  .option('--heartbeat-seconds <s>', "override the control plane's heartbeat interval", seconds)
  .option(
    '--peer-idle-seconds <s>',
    'a tunnel without traffic for this long is reported gone',
    seconds,
    60,
  )
  .option(
    '--probe-port <port>',
    'UDP port of the latency probe responder (default: the WireGuard port + 64)',
    port,
  )
  .option('--no-probe', 'run no latency probe responder')
  .option(
    '--tunnel-latency-seconds <s>',
    "seconds between the relay's own latency measurements through the tunnels",
    seconds,
    5,
  )
  .option('--no-tunnel-latency', "measure no device's latency through its tunnel")
  .option(
    '--dns-upstream <ip[,ip...]>',
    "where the resolver on the tunnel gateway address sends queries (default: /etc/resolv.conf's nameservers)",
    addresses,
  )
  .option('--no-dns', 'serve no resolver on the tunnel gateway address')
  .option(
    '--allow-network <cidr>',
    'a private network devices may reach through the relay, e.g. the cloud network it runs in (repeatable); other private, link-local and uplink-subnet destinations stay closed to them',
    allowNetwork,
  )
  .option(
    '--platforms-file <file>',
    'streaming platforms to add to the shipped table (or whose entries to replace), in its JSON shape',
    platformsFileOption,
  )
  .option(
    '--platform-check-seconds <s>',
    'how often each streaming platform is checked through the uplink (stream mode picks verified nodes)',
    seconds,
    DEFAULT_PLATFORM_CHECK_SECONDS,
  )
  .option(
    '--no-platform-checks',
    'check no streaming platform (the node is never verified for one)',
  );

program.parse();
const o = program.opts<{
  controlUrl: string;
  caFile?: string;
  insecure?: boolean;
  wireguardPort: number;
  uplink: string;
  nodeToken?: string;
  ferryPort?: number;
  tlsPort?: number;
  coverSite?: CoverSite;
  tlsServerName?: string;
  stateDir: string;
  interface: string;
  heartbeatSeconds?: number;
  peerIdleSeconds: number;
  probePort?: number;
  probe: boolean;
  tunnelLatencySeconds: number;
  tunnelLatency: boolean;
  dnsUpstream?: string[];
  dns: boolean;
  platformsFile?: PlatformTable;
  platformCheckSeconds: number;
  platformChecks: boolean;
  allowNetwork?: string[];
}>();

const log = pino({ base: { component: 'relay' }, level: process.env.FERRY_LOG_LEVEL ?? 'info' });
const nodeToken = o.nodeToken ?? process.env.FERRY_NODE_TOKEN;
if (!nodeToken) {
  log.fatal('a node token is required: --node-token or FERRY_NODE_TOKEN');
  process.exit(2);
}

if (
  o.controlUrl.toLowerCase().startsWith('http:') &&
  !isLoopbackService(o.controlUrl) &&
  !o.insecure
) {
  log.fatal(
    'the control plane URL must be https: plain http is accepted only on this machine, or with --insecure',
  );
  process.exit(2);
}

let tls: TlsTransportOptions | null;
try {
  tls = tlsTransportOptions(o);
} catch (e) {
  log.fatal((e as Error).message);
  process.exit(2);
}

const dnsUpstreams = o.dns ? (o.dnsUpstream ?? systemNameservers()) : [];
if (o.dns && dnsUpstreams.length === 0)
  log.warn(
    'no upstream resolver (no --dns-upstream, no nameserver in /etc/resolv.conf): devices get no DNS from this relay',
  );

try {
  const relay = await startRelay({
    controlUrl: o.controlUrl,
    controlCa: o.caFile,
    nodeToken,
    wireguardPort: o.wireguardPort,
    ferryPort: o.ferryPort,
    tls: tls ?? undefined,
    uplink: o.uplink,
    stateDir: o.stateDir,
    interfaceName: o.interface,
    ...(o.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: o.heartbeatSeconds }),
    peerIdleSeconds: o.peerIdleSeconds,
    probePort: o.probe ? o.probePort : null,
    tunnelLatencySeconds: o.tunnelLatency ? o.tunnelLatencySeconds : null,
    dnsUpstreams: upstreamsOf(dnsUpstreams),
    allowedNetworks: o.allowNetwork ?? [],
    platformChecks: o.platformChecks
      ? { table: o.platformsFile ?? SHIPPED_PLATFORMS, intervalSeconds: o.platformCheckSeconds }
      : null,
    log,
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    relay.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        log.error({ err: (e as Error).message }, 'cleanup failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  await relay.done;
  if (!stopping) process.exit(1);
} catch (e) {
  log.fatal({ err: (e as Error).message }, 'relay could not start');
  process.exit(1);
}
