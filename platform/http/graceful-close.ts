// Closing a connection whose request we stopped reading without losing our answer to a reset.
import type { Socket } from 'node:net';

/** How long a connection we stopped reading keeps draining before it is closed for good. */
export const LINGER_MS = 2_000;

/**
 * Closes a connection whose request we stopped reading, the way HTTP asks (RFC 9112 9.6):
 * our answer is sent and our side shut, then what the client still sends is read and dropped
 * until it closes its side or `lingerMs` pass. Closing at once with unread data would make the
 * kernel reset the connection, and the client could lose our answer with it.
 */
export function closeGracefully(socket: Socket, lingerMs = LINGER_MS): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.end();
}

/**
 * From here on, once the answer is sent the connection closes gracefully: used when we answer
 * before the request body has arrived, so what is still on its way must not reset the
 * connection under our answer.
 */
export function closeAfterAnswer(socket: Socket | undefined): void {
  if (!socket || typeof socket.destroySoon !== 'function') return;
  // Node ends a `connection: close` answer with destroySoon(); ours drains first.
  socket.destroySoon = () => closeGracefully(socket);
}
