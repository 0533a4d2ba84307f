// The web graphical mode's own address: a random one of 127.0.0.0/8, which Linux and Windows
// route to the loopback interface whole (in every network namespace with lo up). A browser keys
// cookies and storage by host, not port, so on 127.0.0.1 the session cookie would go to every
// other local listener; on an address nothing else uses, it goes to this one only.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';

/** Where a system that gives the loopback interface 127.0.0.1 alone (macOS) is served. */
export const SHARED_LOOPBACK = '127.0.0.1';

/** 127.a.b.c with a and c in 1-254: never 127.0.0.0/16 (127.0.0.1, Debian's 127.0.1.1). */
export function randomLoopbackAddress(random: Uint8Array = randomBytes(3)): string {
  const [a = 0, b = 0, c = 0] = random;
  return `127.${1 + (a % 254)}.${b}.${1 + (c % 254)}`;
}

/** Whether this machine lets a socket bind `address` (macOS answers EADDRNOTAVAIL). */
function bindable(address: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRNOTAVAIL') resolve(false);
      else reject(e);
    });
    probe.listen({ host: address, port: 0, exclusive: true }, () => {
      probe.close(() => resolve(true));
    });
  });
}

/** An address of the web mode's own, or 127.0.0.1 where the system has only that one. */
export async function ownLoopbackAddress(): Promise<string> {
  const address = randomLoopbackAddress();
  return (await bindable(address)) ? address : SHARED_LOOPBACK;
}
