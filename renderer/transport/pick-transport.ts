// Which transport this page uses: IPC inside the desktop app, else HTTP to the engine host
// that served the page (the web graphical mode).
import type { FerryBridge } from '../../contracts/ipc.js';
import type { FetchLike } from '../../contracts/route-client.js';
import type { EngineTransport } from './engine-transport.js';
import { HttpTransport } from './http-transport.js';
import { IpcTransport } from './ipc-transport.js';

export interface PageFacts {
  bridge: FerryBridge | undefined;
  origin: string;
  fetch: FetchLike;
  /** The web mode's page key (page-key.ts), asked for only when there is no bridge. */
  pageKey: () => string | undefined;
}

export function pickTransport(page: PageFacts): EngineTransport {
  if (page.bridge) return new IpcTransport(page.bridge);
  return new HttpTransport({
    baseUrl: `${page.origin}/api/v1`,
    pageKey: page.pageKey(),
    // The session is an HttpOnly cookie of this origin: sent, never read by script.
    fetch: (url, init) => page.fetch(url, { ...init, credentials: 'same-origin' }),
  });
}
