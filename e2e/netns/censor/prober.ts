// The censor's active prober (IMC 2020, "How China Detects and Blocks Shadowsocks"): it visits
// every new foreign TCP endpoint that the inspector saw carrying data, from the censor's own
// address, with the client's first packet replayed, random bytes of several lengths, a plain
// HTTP request and a TLS ClientHello for the server name the client used (then an HTTPS GET).
// An endpoint whose answers differ from those of the real server of that name, or, when there is
// no name to compare with, one that answers nothing at all (a proxy that swallows what it cannot
// authenticate), is blocked for good.
import { randomBytes, X509Certificate } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { connect as tcpConnect } from 'node:net';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';

import type { CensorEvent, SeenEndpoint } from './inspector.js';
import type { Settings } from './profiles.js';

export interface RawObservation {
  probe: string;
  /** Bytes the endpoint sent back (at most 4 KiB kept, hex). */
  received: string;
  bytes: number;
  /** How the connection ended: closed by the endpoint (fin, reset) or still open (timeout). */
  ended: 'fin' | 'reset' | 'timeout' | 'error';
}

export interface HttpHead {
  status: number;
  /** Header lines in order, lower-case names, without Date (it changes by the second). */
  headers: [string, string][];
}

export interface TlsObservation {
  /** 'handshake' or the error code. */
  outcome: string;
  /** The certificate chain as sent, leaf first, DER in base64. */
  chain: string[];
  /** The answer to GET / over the session. */
  http: HttpHead | undefined;
}

export interface Observations {
  raw: RawObservation[];
  /** The answer to a plain-text HTTP request. */
  http: HttpHead | undefined;
  tls: TlsObservation;
}

const KEEP = 4096;

/** The status line and headers of an HTTP/1.x answer, or undefined when it is not one. */
export function httpHead(text: string): HttpHead | undefined {
  const end = text.indexOf('\r\n\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  if (!m || end < 0) return undefined;
  const headers = text
    .slice(0, end)
    .split('\r\n')
    .slice(1)
    .map((l) => {
      const i = l.indexOf(':');
      return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()] as [string, string];
    })
    .filter(([k]) => k !== 'date');
  return { status: Number(m[1]), headers };
}

function rawProbe(
  host: string,
  port: number,
  probe: string,
  data: Buffer,
  timeoutMs: number,
): Promise<RawObservation> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let ended: RawObservation['ended'] = 'timeout';
    const s = tcpConnect({ host, port }, () => {
      if (data.length) s.write(data);
    });
    const timer = setTimeout(() => s.destroy(), timeoutMs);
    s.on('data', (d: Buffer) => {
      bytes += d.length;
      if (Buffer.concat(chunks).length < KEEP) chunks.push(d);
    });
    s.on('end', () => {
      ended = 'fin';
      s.end();
    });
    s.on('error', (e: NodeJS.ErrnoException) => {
      ended = e.code === 'ECONNRESET' ? 'reset' : 'error';
    });
    s.on('close', () => {
      clearTimeout(timer);
      resolve({
        probe,
        received: Buffer.concat(chunks).subarray(0, KEEP).toString('hex'),
        bytes,
        ended,
      });
    });
  });
}

function chainOf(cert: PeerCertificate | undefined): string[] {
  const out: string[] = [];
  let c = cert as (PeerCertificate & { issuerCertificate?: PeerCertificate }) | undefined;
  while (c?.raw && out.length < 10) {
    out.push(c.raw.toString('base64'));
    const next = c.issuerCertificate as typeof c;
    if (!next || next === c || next.raw?.equals(c.raw)) break;
    c = next;
  }
  return out;
}

function tlsProbe(
  host: string,
  port: number,
  serverName: string | undefined,
  timeoutMs: number,
): Promise<TlsObservation> {
  return new Promise((resolve) => {
    let outcome = 'timeout';
    let chain: string[] = [];
    let text = '';
    const s = tlsConnect({
      host,
      port,
      servername: serverName ?? '',
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    });
    const timer = setTimeout(() => s.destroy(), timeoutMs);
    s.on('secureConnect', () => {
      outcome = 'handshake';
      chain = chainOf(s.getPeerCertificate(true));
      s.write(`GET / HTTP/1.1\r\nHost: ${serverName ?? host}\r\nConnection: close\r\n\r\n`);
    });
    s.on('data', (d: Buffer) => {
      if (text.length < 16_384) text += d.toString('latin1');
      if (text.includes('\r\n\r\n')) s.destroy();
    });
    s.on('error', (e: NodeJS.ErrnoException) => {
      if (outcome !== 'handshake') outcome = e.code ?? 'error';
    });
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ outcome, chain, http: httpHead(text) });
    });
  });
}

export interface ProbeSet {
  first: Buffer;
  randoms: Buffer[];
  serverName: string | undefined;
}

/** A fresh set of probes for an endpoint: the same set goes to the real server, to compare. */
export function probeSet(first: Buffer, serverName: string | undefined): ProbeSet {
  return { first, randoms: [8, 221, 600].map((n) => randomBytes(n)), serverName };
}

/** Every probe of the set against host:port, in parallel. */
export async function observe(
  host: string,
  port: number,
  set: ProbeSet,
  timeoutMs: number,
): Promise<Observations> {
  const request = `GET / HTTP/1.1\r\nHost: ${set.serverName ?? host}\r\nUser-Agent: Mozilla/5.0\r\nAccept: */*\r\nConnection: close\r\n\r\n`;
  const [raw, tls] = await Promise.all([
    Promise.all([
      rawProbe(host, port, 'replay', set.first, timeoutMs),
      ...set.randoms.map((r) => rawProbe(host, port, `random ${r.length}`, r, timeoutMs)),
      rawProbe(host, port, 'http', Buffer.from(request), timeoutMs),
    ]),
    tlsProbe(host, port, set.serverName, timeoutMs),
  ]);
  const http = raw.find((r) => r.probe === 'http')!;
  return { raw, http: httpHead(Buffer.from(http.received, 'hex').toString('latin1')), tls };
}

/** A server closes or keeps a connection open; it answers or not: the class of a reaction. */
const reaction = (r: RawObservation): string =>
  `${r.bytes > 0 ? 'answers' : 'silent'}, ${r.ended === 'timeout' ? 'stays open' : 'closes'}`;

/** Why the endpoint's answers are not the real server's; undefined when they are the same. */
export function difference(endpoint: Observations, real: Observations): string | undefined {
  for (const r of real.raw) {
    const e = endpoint.raw.find((x) => x.probe === r.probe);
    if (!e || reaction(e) !== reaction(r))
      return `${r.probe}: the endpoint ${e ? reaction(e) : 'was not probed'}, the real server ${reaction(r)}`;
  }
  if (JSON.stringify(endpoint.http) !== JSON.stringify(real.http))
    return 'plain HTTP: a different answer';
  if (endpoint.tls.outcome !== real.tls.outcome)
    return `TLS: ${endpoint.tls.outcome}, the real server ${real.tls.outcome}`;
  if (endpoint.tls.chain.join() !== real.tls.chain.join()) return 'TLS: another certificate chain';
  if (JSON.stringify(endpoint.tls.http) !== JSON.stringify(real.tls.http))
    return 'HTTPS: a different answer';
  return undefined;
}

/** An endpoint that answers no probe with a single byte: no web server behaves so. */
export function swallowsEverything(o: Observations): boolean {
  return o.raw.every((r) => r.bytes === 0) && o.tls.outcome !== 'handshake';
}

/** The subject of a DER certificate (for events a person reads). */
export function subjectOf(derBase64: string): string {
  try {
    return new X509Certificate(Buffer.from(derBase64, 'base64')).subject;
  } catch {
    return '?';
  }
}

export class Prober {
  private readonly seen = new Set<string>();

  constructor(
    private readonly s: Settings,
    private readonly hooks: {
      event(e: CensorEvent): void;
      block(server: string, port: number): Promise<void>;
    },
  ) {}

  /** Probes the endpoint if it is new; blocks it when it fails. */
  consider(ep: SeenEndpoint): void {
    const key = `${ep.server}:${ep.port}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    void this.visit(ep).catch((e: unknown) =>
      this.hooks.event({ kind: 'error', message: `probe ${key}: ${(e as Error).message}` }),
    );
  }

  private realServer(ep: SeenEndpoint): Promise<string | undefined> {
    return findRealServer(this.s, ep.serverName, ep.port);
  }

  private async visit(ep: SeenEndpoint): Promise<void> {
    const set = probeSet(ep.first, ep.serverName);
    const realAt = await this.realServer(ep);
    const [endpoint, real] = await Promise.all([
      observe(ep.server, ep.port, set, this.s.probeTimeoutMs),
      realAt === undefined ? undefined : observeAt(realAt, set, this.s.probeTimeoutMs),
    ]);
    const reason = real
      ? difference(endpoint, real)
      : swallowsEverything(endpoint)
        ? 'answers no probe (a proxy that swallows what it cannot authenticate)'
        : undefined;
    if (reason !== undefined) await this.hooks.block(ep.server, ep.port);
    this.hooks.event({
      kind: 'probe',
      server: ep.server,
      port: ep.port,
      serverName: ep.serverName,
      blocked: reason !== undefined,
      reason: reason ?? (real ? 'answers as the real server does' : 'answers like a server'),
      observations: { endpoint, real },
    });
  }
}

/** Where the real server of a name is: the test's map, else the censor's own lookup. */
export async function findRealServer(
  s: Pick<Settings, 'realServers' | 'realResolver'>,
  serverName: string | undefined,
  port: number,
): Promise<string | undefined> {
  if (serverName === undefined) return undefined;
  const known = s.realServers[serverName];
  if (known !== undefined || s.realResolver === undefined) return known;
  const resolver = new Resolver({ timeout: 1000, tries: 2 });
  resolver.setServers([s.realResolver]);
  try {
    const [address] = await resolver.resolve4(serverName);
    return address === undefined ? undefined : `${address}:${port}`;
  } catch {
    return undefined;
  }
}

function observeAt(hostPort: string, set: ProbeSet, timeoutMs: number): Promise<Observations> {
  const i = hostPort.lastIndexOf(':');
  return observe(hostPort.slice(0, i), Number(hostPort.slice(i + 1)), set, timeoutMs);
}
