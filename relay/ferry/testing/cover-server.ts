// Test code: a stand-in cover site (Node's HTTPS server with a self-signed certificate made by
// openssl, for a name such as cover.example), and a stand-in for the TLS port's handover: a
// TCP server that reads a connection's first bytes and hands it, with them, to a splice, as
// the native server hands a stranger's connection to the relay.
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import net from 'node:net';

import { selfSignedCertificate } from '../../../platform/tls/testing/self-signed.js';

export interface TestCoverSite {
  port: number;
  serverName: string;
  /** The certificate (DER) the site presents. */
  certDer: Buffer;
  close(): Promise<void>;
}

/** An HTTPS site on loopback: `/` answers a page with a header of its own; others 404. */
export async function startTestCoverSite(serverName = 'cover.example'): Promise<TestCoverSite> {
  const { cert, key } = selfSignedCertificate(serverName);
  const server = https.createServer({ cert, key }, (req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html', 'x-cover': serverName });
      res.end(`<!doctype html><title>${serverName}</title>`);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    serverName,
    certDer: Buffer.from(new X509Certificate(cert).raw),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * A TCP port on loopback that reads each connection's first chunk and hands the connection,
 * with that chunk, to `handOver` (the native server's onStranger, as the relay wires it).
 */
export async function startHandoverPort(
  handOver: (socket: net.Socket, head: Buffer) => void,
): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.once('data', (head: Buffer) => {
      socket.pause();
      handOver(socket, head);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
