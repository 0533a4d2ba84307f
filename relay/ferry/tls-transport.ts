// The relay's TLS transport port: strangers (every connection the Ferry server does not
// authenticate from its first flight) are spliced to the cover site, so that to anyone else
// the port is the cover site itself. Until the native server accepts on the port and hands
// strangers over (ServerTunnelOptions.tlsListenPort, onStranger), the relay listens on it
// itself and every connection is a stranger's.
import { closeSync } from 'node:fs';
import net from 'node:net';
import type { Logger } from 'pino';
import { CoverAddress } from './cover-address.js';
import { CoverSplice } from './cover-splice.js';
import type { TlsTransportOptions } from './tls-options.js';

export class TlsTransport {
  private server: net.Server | undefined;

  private constructor(
    readonly options: TlsTransportOptions,
    readonly cover: CoverAddress,
    private readonly splice: CoverSplice,
  ) {}

  /** Looks the cover site up (throws when it cannot be found): before the port is published. */
  static async prepare(
    options: TlsTransportOptions,
    log: Logger,
    signal: AbortSignal,
  ): Promise<TlsTransport> {
    const cover = await CoverAddress.start(options.cover, { log, signal });
    const splice = new CoverSplice({
      target: () => cover.current,
      onConnectFailed: () => cover.connectFailed(),
    });
    return new TlsTransport(options, cover, splice);
  }

  /**
   * A stranger's connection from the native server: its socket's descriptor, now ours, and the
   * bytes the server read from it.
   */
  onStranger(fd: number, head: Buffer): void {
    let socket: net.Socket;
    try {
      socket = new net.Socket({ fd, readable: true, writable: true, allowHalfOpen: true });
    } catch {
      // Not a socket we can use: it must not stay open, answered by no one.
      try {
        closeSync(fd);
      } catch {
        // Already closed.
      }
      return;
    }
    this.splice.splice(socket, head);
  }

  /** Listens on the TLS port itself, every connection a stranger's (no native listener). */
  async listen(host = '0.0.0.0'): Promise<void> {
    const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) =>
      this.splice.splice(socket, Buffer.alloc(0)),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port: this.options.port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    // A failed accept (out of descriptors) is the stranger's loss, not the relay's.
    server.on('error', () => undefined);
    this.server = server;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.splice.close();
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }
}
