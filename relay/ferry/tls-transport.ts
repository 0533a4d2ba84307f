// The relay's side of the TLS transport port: the native Ferry server accepts on it and hands
// over strangers (every connection it does not authenticate from its first flight), which are
// spliced to the cover site, so that to anyone else the port is the cover site itself.
import type { Logger } from 'pino';
import { CoverAddress } from './cover-address.js';
import { CoverSplice } from './cover-splice.js';
import { handedSocket } from './handed-socket.js';
import type { TlsTransportOptions } from './tls-options.js';

export class TlsTransport {
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
   * A stranger's connection from the native server (ServerTunnelOptions.onStranger): its
   * socket's descriptor, now ours, and the bytes the server read from it.
   */
  readonly onStranger = (fd: number, head: Buffer): void => {
    const socket = handedSocket(fd);
    if (socket) this.splice.splice(socket, head);
  };

  close(): void {
    this.splice.close();
  }
}
