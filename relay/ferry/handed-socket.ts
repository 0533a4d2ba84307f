// A connection the native server handed over by its descriptor (a stranger's, an API stream's),
// as a Node socket; a descriptor that is not one is closed, never left open answered by no one.
import { closeSync } from 'node:fs';
import net from 'node:net';

export function handedSocket(fd: number): net.Socket | null {
  try {
    return new net.Socket({ fd, readable: true, writable: true, allowHalfOpen: true });
  } catch {
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
    return null;
  }
}
