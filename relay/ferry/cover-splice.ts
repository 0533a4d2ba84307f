// Hands a stranger's connection to the cover site: the bytes the TLS port already read from it
// first, then both directions as they come, until either end closes. To a prober the port is
// the cover site itself: its certificate chain, its answers, its timeouts, its resets. Nothing
// about the stranger (its address, its bytes) is logged or kept.
import net from 'node:net';

export interface CoverSpliceOptions {
  /** Where the cover site is now (CoverAddress.current). */
  target: () => { host: string; port: number };
  /** A connection to the cover site failed (CoverAddress.connectFailed: it may have moved). */
  onConnectFailed?: () => void;
  /** Splices at once; a stranger beyond them is closed at once (default 256). */
  maxSplices?: number;
  /**
   * A splice with no byte either way for this long is closed (default 10 minutes): far longer
   * than a web server's own timeouts, so the ones a prober sees are the cover site's.
   */
  idleMs?: number;
  /** Giving up on connecting to the cover site (default 10 s). */
  connectTimeoutMs?: number;
  /** Opens the connection to the cover site (tests); net.connect by default. */
  connect?: (o: net.NetConnectOpts) => net.Socket;
}

export const DEFAULT_MAX_SPLICES = 256;
export const DEFAULT_SPLICE_IDLE_MS = 10 * 60_000;

export class CoverSplice {
  /** Each splice's two sockets, until both have closed. */
  private readonly splices = new Set<readonly [net.Socket, net.Socket]>();
  private closed = false;

  constructor(private readonly o: CoverSpliceOptions) {}

  /** Splices in progress. */
  get active(): number {
    return this.splices.size;
  }

  /**
   * Splices `stranger` (an accepted TCP connection; the splice owns it from here) to the cover
   * site, writing `head`, what was read from it already, first.
   */
  splice(stranger: net.Socket, head: Buffer): void {
    // Half-close is honoured both ways: a stranger that sends its request and shuts its side
    // still gets the whole answer, as from the site.
    stranger.allowHalfOpen = true;
    stranger.on('error', () => undefined);
    if (this.closed || this.active >= (this.o.maxSplices ?? DEFAULT_MAX_SPLICES)) {
      stranger.destroy();
      return;
    }
    const target = this.o.target();
    let cover: net.Socket;
    try {
      cover = (this.o.connect ?? net.connect)({
        host: target.host,
        port: target.port,
        allowHalfOpen: true,
        noDelay: true,
      });
    } catch {
      this.o.onConnectFailed?.();
      stranger.resetAndDestroy();
      return;
    }
    stranger.setNoDelay(true);
    const pair = [stranger, cover] as const;
    this.splices.add(pair);
    let connected = false;
    const connectTimer = setTimeout(() => {
      this.o.onConnectFailed?.();
      cover.destroy();
      stranger.resetAndDestroy();
    }, this.o.connectTimeoutMs ?? 10_000);
    cover.once('connect', () => {
      connected = true;
      clearTimeout(connectTimer);
    });
    // A reset on one side is a reset on the other, as it would have been without the relay.
    cover.on('error', () => {
      clearTimeout(connectTimer);
      if (!connected) this.o.onConnectFailed?.();
      stranger.resetAndDestroy();
    });
    stranger.on('error', () => cover.resetAndDestroy());
    // Each side's own timer: a side sees activity in both directions of its own connection.
    const idle = () => {
      stranger.destroy();
      cover.destroy();
    };
    stranger.setTimeout(this.o.idleMs ?? DEFAULT_SPLICE_IDLE_MS, idle);
    cover.setTimeout(this.o.idleMs ?? DEFAULT_SPLICE_IDLE_MS, idle);
    for (const [socket, other] of [
      [stranger, cover],
      [cover, stranger],
    ] as const)
      socket.once('close', () => {
        if (other.closed) this.splices.delete(pair);
        clearTimeout(connectTimer);
        // Closed without a reset after both directions ended: the other is done too, or its
        // last bytes are on their way; destroying it now would cut them.
        if (!other.writableFinished || !other.readableEnded) other.end();
      });
    if (head.length > 0) cover.write(head);
    stranger.pipe(cover);
    cover.pipe(stranger);
  }

  /** Ends every splice (the relay stops). */
  close(): void {
    this.closed = true;
    for (const pair of this.splices) for (const socket of pair) socket.destroy();
    this.splices.clear();
  }
}
