// GET /api/v1/events: server-sent events. The current status at once, then every engine event
// in order, a heartbeat comment while nothing happens, and an end the client can tell apart
// from a broken connection when the host shuts down.
import type { ServerResponse } from 'node:http';
import { LocalStatus, Notice } from '../../contracts/index.js';
import type { EngineApi, EngineEvent } from '../engine-api.js';

export const HEARTBEAT_MS = 15_000;

/** The open streams, so that shutting down can end each. */
export class EventStreams {
  private readonly open = new Set<() => void>();

  get size(): number {
    return this.open.size;
  }

  /** Streams the engine's events to `res` until the client goes or `closeAll` is called. */
  serve(res: ServerResponse, engine: EngineApi, heartbeatMs = HEARTBEAT_MS): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // A stream lasts as long as the client's interest: its socket is never reused.
      connection: 'close',
    });
    const send = (event: string, data: unknown) => {
      if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    // The answer's shape is checked as every other answer's is; an event that does not fit is
    // a bug and is left out rather than sent.
    const forward = (e: EngineEvent) => {
      if (e.type === 'status') {
        const status = LocalStatus.safeParse(e.status);
        if (status.success) send('status', status.data);
      } else {
        const notice = Notice.safeParse(e.notice);
        if (notice.success) send('notice', notice.data);
      }
    };
    // Synchronous from here to subscribe(): no event can fall between the two.
    forward({ type: 'status', status: engine.status() });
    const unsubscribe = engine.subscribe(forward);
    const heartbeat = setInterval(() => {
      if (!res.writableEnded) res.write(': heartbeat\n\n');
    }, heartbeatMs);
    const finish = () => {
      if (!this.open.delete(finish)) return;
      clearInterval(heartbeat);
      unsubscribe();
      if (!res.writableEnded) res.end();
    };
    this.open.add(finish);
    res.once('close', finish);
  }

  /** Ends every stream (shutdown): each client sees the stream end, not a reset. */
  closeAll(): void {
    for (const finish of [...this.open]) finish();
  }
}
