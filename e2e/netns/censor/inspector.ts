// The censor's userspace decisions, one queued packet at a time: Wu et al.'s Algorithm 1 on the
// first data packet of each foreign TCP connection (fet), the ClientHello's server name and JA4
// (sni-block, tls-fingerprint, tcp-budget's allowlist), QUIC Initials and DNS answers (sni-block),
// and the new endpoints the prober should visit. A verdict is accept or drop, with the marks the
// enforcing nftables chain acts on (profiles.ts MARK). No I/O here: inspector-main.ts wires it.
import { cidrMatcher } from './cidr.js';
import { scanClientRecord, MAX_RECORD, type ClientHello } from '../../../native/client-hello.js';
import { forgeDnsAnswer } from './dns-forge.js';
import { classifyFirstPacket } from './fet-detector.js';
import { parseIpPacket, withUdpPayload, type IpPacket } from './ip-packet.js';
import { ja4 } from '../../../native/ja4.js';
import { MARK, nameMatches, type Settings } from './profiles.js';
import { helloFromCrypto, openInitial, type CryptoChunk } from './quic-initial.js';

export interface Verdict {
  accept: boolean;
  /** The packet's new mark (0: unchanged): its low byte becomes the connection's mark. */
  mark: number;
  /** A replacement for the packet (a forged DNS answer). */
  replacement?: Buffer;
}

/** What the censor did, for tests to assert on (this is the test internet's censor, not Ferry). */
export type CensorEvent =
  | { kind: 'fet-flag'; client: string; server: string; port: number; length: number; head: string }
  | { kind: 'fet-pass'; client: string; server: string; port: number; exemptions: string[] }
  | { kind: 'sni-reset'; client: string; server: string; port: number; serverName: string }
  | { kind: 'quic-drop'; client: string; server: string; port: number; serverName: string }
  | { kind: 'dns-forged'; resolver: string; name: string; forged: string }
  | {
      kind: 'ja4-reset';
      client: string;
      server: string;
      port: number;
      ja4: string;
      serverName: string | undefined;
    }
  | {
      kind: 'ja4-pass';
      client: string;
      server: string;
      port: number;
      ja4: string;
      serverName: string | undefined;
    }
  | { kind: 'budget-exempt'; server: string; port: number; serverName: string }
  | {
      kind: 'probe';
      server: string;
      port: number;
      serverName: string | undefined;
      blocked: boolean;
      reason: string;
      observations: unknown;
    }
  | { kind: 'error'; message: string };

/** A foreign TCP endpoint seen carrying data, for the prober. */
export interface SeenEndpoint {
  server: string;
  port: number;
  /** The client's first data packet (replayed by the prober). */
  first: Buffer;
  serverName: string | undefined;
}

interface TcpFlow {
  stream: Buffer;
  nextSeq: number;
  first: Buffer | undefined;
  /** The verdict's mark once decided (undefined before). */
  decided: number | undefined;
}

const ACCEPT: Verdict = { accept: true, mark: 0 };
/** Flows remembered at most (oldest forgotten first): the queue sees only their first packets. */
const MAX_FLOWS = 20_000;

export class Inspector {
  private readonly tcp = new Map<string, TcpFlow>();
  private readonly quic = new Map<string, CryptoChunk[]>();
  private readonly hosting: (a: string) => boolean;
  private readonly on: (p: Settings['profiles'][number]) => boolean;
  /** Whether a connection's ClientHello must be read (not only its first packet). */
  private readonly readsHello: boolean;

  constructor(
    private readonly s: Settings,
    private readonly hooks: { event(e: CensorEvent): void; endpoint(e: SeenEndpoint): void },
  ) {
    this.hosting = cidrMatcher(s.hosting);
    this.on = (p) => s.profiles.includes(p);
    this.readsHello = [
      'sni-block',
      'service-block',
      'tls-fingerprint',
      'tcp-budget',
      'prober',
    ].some((p) => this.on(p as Settings['profiles'][number]));
  }

  handle(raw: Buffer): Verdict {
    const p = parseIpPacket(raw);
    if (!p) return ACCEPT;
    if (p.protocol === 'tcp') return this.tcpPacket(p);
    if (p.protocol === 'udp' && p.dport === 443) return this.quicPacket(p);
    if (p.protocol === 'udp' && p.sport === 53) return this.dnsAnswer(raw, p);
    return ACCEPT;
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): V {
    if (map.size >= MAX_FLOWS) map.delete(map.keys().next().value!);
    map.set(key, value);
    return value;
  }

  private tcpPacket(p: IpPacket): Verdict {
    if (p.payload.length === 0) return ACCEPT;
    const key = `${p.src}:${p.sport}>${p.dst}:${p.dport}`;
    const flow =
      this.tcp.get(key) ??
      this.remember(this.tcp, key, {
        stream: Buffer.alloc(0),
        nextSeq: p.seq,
        first: undefined,
        decided: undefined,
      });
    // A packet queued before the connection's mark took hold (a retransmission sent while the
    // verdict was on its way): the same verdict again, never a second "first packet".
    if (flow.decided !== undefined) return { accept: true, mark: flow.decided };
    // Only the stream in order: a retransmission or a segment after a gap adds nothing.
    if (p.seq !== flow.nextSeq) return ACCEPT;
    flow.nextSeq = (p.seq + p.payload.length) >>> 0;
    const ids = { client: p.src, server: p.dst, port: p.dport };
    if (flow.first === undefined) {
      flow.first = Buffer.from(p.payload);
      if (this.on('fet')) {
        const v = classifyFirstPacket(p.payload);
        if (v.flagged) {
          this.hooks.event({
            kind: 'fet-flag',
            ...ids,
            length: p.payload.length,
            head: p.payload.subarray(0, 16).toString('hex'),
          });
          // This packet puts the 3-tuple into the timed block set; a later packet of this
          // connection (a retransmission after the block ended) is dropped, and adds nothing.
          this.decide(flow, MARK.drop | MARK.done);
          return { accept: true, mark: MARK.fetFlag | MARK.done };
        }
        this.hooks.event({ kind: 'fet-pass', ...ids, exemptions: v.exemptions });
      }
      if (!this.readsHello) return this.decide(flow, MARK.done);
    }
    flow.stream = Buffer.concat([flow.stream, p.payload]);
    const scan = scanClientRecord(flow.stream);
    if (scan.kind === 'incomplete' && flow.stream.length < MAX_RECORD) return ACCEPT;
    const hello = scan.kind === 'hello' ? scan.hello : undefined;
    const first = flow.first;
    const verdict = this.decide(flow, MARK.done | this.helloMarks(hello, ids));
    if (this.on('prober'))
      this.hooks.endpoint({
        server: p.dst,
        port: p.dport,
        first,
        serverName: hello?.serverName,
      });
    return verdict;
  }

  /** The flow's verdict, kept (bounded with the flows) for packets that were queued meanwhile. */
  private decide(flow: TcpFlow, mark: number): Verdict {
    flow.decided = mark;
    flow.stream = Buffer.alloc(0);
    flow.first = undefined;
    return { accept: true, mark };
  }

  /** The names whose hellos, Initials and DNS answers are blocked: sni-block's and the service's. */
  private blockedNames(): string[] {
    return [
      ...(this.on('sni-block') ? this.s.sniBlock : []),
      ...(this.on('service-block') ? this.s.service.names : []),
    ];
  }

  private blocksName(name: string | undefined): boolean {
    return nameMatches(name, this.blockedNames());
  }

  /** sni-block, tls-fingerprint and tcp-budget on a connection's hello (none: not TLS). */
  private helloMarks(
    hello: ClientHello | undefined,
    ids: { client: string; server: string; port: number },
  ): number {
    if (!hello) return 0;
    const name = hello.serverName;
    if (this.blocksName(name)) {
      this.hooks.event({ kind: 'sni-reset', ...ids, serverName: name! });
      return MARK.reset;
    }
    if (this.on('tls-fingerprint')) {
      const fp = ja4(hello);
      const pass = this.s.ja4Allow.includes(fp);
      this.hooks.event({
        kind: pass ? 'ja4-pass' : 'ja4-reset',
        ...ids,
        ja4: fp,
        serverName: name,
      });
      if (!pass) return MARK.reset;
    }
    if (this.on('tcp-budget') && this.hosting(ids.server) && nameMatches(name, this.s.sniAllow)) {
      this.hooks.event({
        kind: 'budget-exempt',
        server: ids.server,
        port: ids.port,
        serverName: name!,
      });
      return MARK.sniAllowed;
    }
    return 0;
  }

  private quicPacket(p: IpPacket): Verdict {
    if (!this.on('sni-block') && !this.on('service-block')) return ACCEPT;
    const opened = openInitial(p.payload);
    if (!opened) return { accept: true, mark: MARK.done };
    const key = `${p.src}:${p.sport}>${p.dst}:${p.dport}`;
    const chunks = this.quic.get(key) ?? this.remember(this.quic, key, []);
    chunks.push(...opened.crypto);
    const hello = helloFromCrypto(chunks);
    if (!hello) return ACCEPT;
    this.quic.delete(key);
    if (this.blocksName(hello.serverName)) {
      this.hooks.event({
        kind: 'quic-drop',
        client: p.src,
        server: p.dst,
        port: p.dport,
        serverName: hello.serverName!,
      });
      // Accepted here so that the enforcing chain marks the flow; it drops this packet too.
      return { accept: true, mark: MARK.drop | MARK.done };
    }
    return { accept: true, mark: MARK.done };
  }

  private dnsAnswer(raw: Buffer, p: IpPacket): Verdict {
    if (!this.on('sni-block') && !this.on('service-block')) return ACCEPT;
    const forged = forgeDnsAnswer(p.payload, this.blockedNames(), this.s.forgedAddress);
    if (!forged) return ACCEPT;
    this.hooks.event({
      kind: 'dns-forged',
      resolver: p.src,
      name: forged.name,
      forged: this.s.forgedAddress,
    });
    return { accept: true, mark: 0, replacement: withUdpPayload(raw, forged.payload) };
  }
}
