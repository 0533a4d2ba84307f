// `ferry-server`: runs the control plane until SIGTERM/SIGINT, then shuts down gracefully.
import { Command, InvalidArgumentError } from 'commander';

import { optionFileText, platformsFileOption } from '../platform/options/option-files.js';
import {
  DnsZone,
  isLoopbackHost,
  Ipv6ProbeEndpoint,
  type PlatformTable,
} from '../contracts/index.js';
import { buildControlPlane, VERSION } from './app.js';
import { DEFAULT_PLATFORM_FRESH_SECONDS } from './domain/platform-checks.js';
import { DEFAULT_RATE_LIMITS } from './http/rate-limits.js';
import { createLogger } from './logging.js';
import { loadSigningKey } from './signing-key.js';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('a port number 0-65535');
  return n;
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number above 0');
  return n;
}

function dnsZone(value: string): string {
  const zone = value.toLowerCase().replace(/\.$/, '');
  if (!DnsZone.safeParse(zone).success)
    throw new InvalidArgumentError('a DNS zone such as whoami.example.net');
  return zone;
}

/** A PEM file's text, read at start (a missing or unreadable file stops the start). */
function pemFile(value: string): string {
  const text = optionFileText(value);
  if (!/-----BEGIN [A-Z ]+-----/.test(text)) throw new InvalidArgumentError('not a PEM file');
  return text;
}

/** `--domestic-name CC=NAME`, repeatable: each country's name, collected. */
function domesticName(
  value: string,
  previous: Record<string, string> = {},
): Record<string, string> {
  const m = /^([A-Za-z]{2})=(.+)$/.exec(value.trim());
  const name = m?.[2]?.toLowerCase().replace(/\.$/, '') ?? '';
  if (!m || !DnsZone.safeParse(name).success)
    throw new InvalidArgumentError('a country and a name served there: CN=www.baidu.com');
  return { ...previous, [m[1]!.toUpperCase()]: name };
}

function ipv6Probe(value: string): string {
  if (!Ipv6ProbeEndpoint.safeParse(value).success)
    throw new InvalidArgumentError('an IPv6 address and port: [2001:db8::1]:443');
  return value;
}

const program = new Command('ferry-server')
  .description(
    'Ferry control plane: accounts, devices, regions, nodes, connect and status (/api/v1 and /v1)',
  )
  .version(VERSION)
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--port <port>', 'port to listen on (0: any free port)', port, 8080)
  .option(
    '--tls-cert <file>',
    'serve HTTPS with this certificate chain (PEM; with --tls-key). Clients refuse plain HTTP to anything but loopback',
    pemFile,
  )
  .option('--tls-key <file>', 'the private key of --tls-cert (PEM)', pemFile)
  .option('--data-dir <dir>', 'where the SQLite database lives', './.ferry-data')
  .option('--database-url <url>', 'use PostgreSQL instead of SQLite (postgres://...)')
  .option('--no-rate-limits', 'turn rate limits off (benchmarks only)')
  .option(
    '--rate-limit-ip <n>',
    'requests per minute per client address',
    positive,
    DEFAULT_RATE_LIMITS.perIpPerMinute,
  )
  .option(
    '--rate-limit-account <n>',
    'requests per minute per account',
    positive,
    DEFAULT_RATE_LIMITS.perAccountPerMinute,
  )
  .option(
    '--rate-limit-signup <n>',
    'sign-ups and sign-ins per minute per address',
    positive,
    DEFAULT_RATE_LIMITS.signupPerIpPerMinute,
  )
  .option(
    '--node-healthy-seconds <n>',
    'a node is healthy while its last heartbeat is younger',
    positive,
    30,
  )
  .option(
    '--dns-leak-zone <zone>',
    "a DNS zone whose authority answers <label>.<zone> with the asking resolver's address (netcli diagnose's DNS leak check)",
    dnsZone,
  )
  .option(
    '--ipv6-probe <[addr]:port>',
    "a TCP service reachable over IPv6 (netcli diagnose's IPv6 leak check)",
    ipv6Probe,
  )
  .option(
    '--domestic-name <CC=name>',
    "a name served at home in a country (netcli diagnose's domestic names check; repeatable; default: the shipped ones)",
    domesticName,
  )
  .option(
    '--platforms-file <file>',
    'streaming platforms to add to the shipped table (or whose entries to replace): the names POST /connect takes with `platform` (the relays check what their own --platforms-file says)',
    platformsFileOption,
  )
  .option(
    '--platform-fresh-seconds <n>',
    "how long a node's platform check counts as verified (stream mode); twice the relays' --platform-check-seconds is a good value",
    positive,
    DEFAULT_PLATFORM_FRESH_SECONDS,
  )
  .option(
    '--signing-key <file>',
    "the service's Ed25519 key (PEM, PKCS#8) that signs the relay list; default: the data dir's signing-key.pem, made at the first start (give every instance of one service the same file)",
  )
  .option(
    '--print-public-key',
    "print the signing key's public half (base64 of its 32 bytes: what clients are given with --service-key) and exit",
  )
  .addHelpText(
    'after',
    '\nEnvironment:\n  FERRY_ADMIN_TOKEN   bearer token of the admin routes (admin routes are closed without it)\n  FERRY_LOG_LEVEL     pino level (default info)',
  );

program.parse();
const o = program.opts<{
  host: string;
  port: number;
  tlsCert?: string;
  tlsKey?: string;
  dataDir: string;
  databaseUrl?: string;
  rateLimits: boolean;
  rateLimitIp: number;
  rateLimitAccount: number;
  rateLimitSignup: number;
  nodeHealthySeconds: number;
  dnsLeakZone?: string;
  ipv6Probe?: string;
  domesticName?: Record<string, string>;
  platformsFile?: PlatformTable;
  platformFreshSeconds: number;
  signingKey?: string;
  printPublicKey?: boolean;
}>();

if (o.printPublicKey) {
  try {
    const key = await loadSigningKey({
      dataDir: o.dataDir,
      ...(o.signingKey !== undefined ? { file: o.signingKey } : {}),
    });
    process.stdout.write(`${key.publicKey}\n`);
    process.exit(0);
  } catch (e) {
    process.stderr.write(`ferry-server: ${(e as Error).message}\n`);
    process.exit(2);
  }
}

const logger = createLogger('control-plane');
const adminToken = process.env.FERRY_ADMIN_TOKEN || undefined;
if (adminToken !== undefined && adminToken.length < 16) {
  logger.fatal('FERRY_ADMIN_TOKEN must be at least 16 characters');
  process.exit(2);
}

if ((o.tlsCert === undefined) !== (o.tlsKey === undefined)) {
  logger.fatal('--tls-cert and --tls-key go together');
  process.exit(2);
}
const tls = o.tlsCert && o.tlsKey ? { cert: o.tlsCert, key: o.tlsKey } : undefined;
if (tls === undefined && !isLoopbackHost(o.host))
  logger.warn(
    'serving plain HTTP beyond this machine: clients refuse it unless their user says --insecure (give --tls-cert and --tls-key, or put TLS in front)',
  );

try {
  const plane = await buildControlPlane({
    tls,
    dataDir: o.dataDir,
    databaseUrl: o.databaseUrl,
    adminToken,
    rateLimits: o.rateLimits
      ? {
          perIpPerMinute: o.rateLimitIp,
          perAccountPerMinute: o.rateLimitAccount,
          signupPerIpPerMinute: o.rateLimitSignup,
        }
      : undefined,
    nodeHealthyForMs: o.nodeHealthySeconds * 1000,
    dnsLeakZone: o.dnsLeakZone,
    ipv6Probe: o.ipv6Probe,
    domesticNames: o.domesticName,
    platforms: o.platformsFile,
    platformFreshMs: o.platformFreshSeconds * 1000,
    signingKeyFile: o.signingKey,
    logger,
  });
  const address = await plane.app.listen({ host: o.host, port: o.port });
  logger.info(
    {
      listening: address,
      storage: o.databaseUrl ? 'postgres' : 'sqlite',
      tls: tls !== undefined,
      admin: adminToken !== undefined,
    },
    'control plane ready',
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    plane.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (e: unknown) => {
        logger.error({ err: { message: (e as Error).message } }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (e) {
  const err = e as Error & { cause?: Error };
  logger.fatal({ err: { message: err.message, cause: err.cause?.message } }, 'could not start');
  process.exit(1);
}
