// The desktop app's transport: Electron's preload exposes `window.ferry` (contracts/ipc.ts),
// whose calls answer `{ok, value} | {ok: false, error}` and whose events main pushes.
import type {
  FaceEvent,
  FacePayload,
  FaceRouteId,
  FaceValue,
  FerryBridge,
} from '../../contracts/ipc.js';
import type { EngineListener, EngineTransport } from './engine-transport.js';
import { FaceCallError } from './face-call-error.js';

declare global {
  interface Window {
    /** Present only inside the desktop app (the preload script). */
    ferry?: FerryBridge;
  }
}

export class IpcTransport implements EngineTransport {
  constructor(private readonly bridge: FerryBridge) {}

  async call<K extends FaceRouteId>(id: K, payload: FacePayload<K>): Promise<FaceValue<K>> {
    let result;
    try {
      result = await this.bridge.invoke(id, payload);
    } catch (e) {
      // The bridge itself failed (main gone, a payload the preload refused): no engine answer.
      const message = e instanceof Error ? e.message : String(e);
      throw new FaceCallError(
        // The app shows its own words for `unreachable` (describeError); this is the detail.
        // eslint-disable-next-line i18next/no-literal-string -- a developer's detail, not shown.
        { code: 'unreachable', message: `the app's engine did not answer (${message})` },
        { cause: e },
      );
    }
    if (result.ok) return result.value;
    throw new FaceCallError(result.error);
  }

  /**
   * Main is the engine's host (or its client) for as long as this window lives: the link is up
   * from the start. Main pushes status changes only, so the store asks for a snapshot on `up`.
   */
  subscribe(listener: EngineListener): () => void {
    let live = true;
    const off = this.bridge.onEvent((e: FaceEvent) => {
      if (live) listener.event(e);
    });
    queueMicrotask(() => {
      if (live) listener.connection('up');
    });
    return () => {
      live = false;
      off();
    };
  }
}
