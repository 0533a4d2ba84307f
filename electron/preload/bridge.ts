// What the preload gives the renderer: a FerryBridge (contracts/ipc.ts) over ipcRenderer, and
// nothing else. Calls are checked before they leave (a known call, a payload its schema takes)
// and their results on the way back; events are checked before a listener sees them. Main
// checks everything again: the renderer is not trusted, this only catches mistakes early.
import { z } from 'zod';
import {
  FACE_ROUTE_IDS,
  FaceError,
  ipcSchema,
  type FaceEvent,
  type FaceResult,
  type FaceRouteId,
  type FerryBridge,
} from '../../contracts/ipc.js';
import type { FaceCode } from '../../contracts/face-codes.js';

/** The parts of Electron's ipcRenderer the bridge uses. */
export interface IpcRendererSeam {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/** The part of Electron's contextBridge the preload uses. */
export interface ContextBridgeSeam {
  exposeInMainWorld(apiKey: string, api: unknown): void;
}

/** The one name the renderer finds the bridge under: `window.ferry`. */
export const BRIDGE_KEY = 'ferry';

/** The shape of a result from main; the value itself main has checked against its schema. */
const WireResult = z.union([
  z.strictObject({ ok: z.literal(true), value: z.unknown() }),
  z.strictObject({ ok: z.literal(false), error: FaceError }),
]);

const KNOWN = new Set<string>(FACE_ROUTE_IDS);

function refusal(code: FaceCode, message: string, errors?: FaceError['errors']): FaceResult<never> {
  return { ok: false, error: errors ? { code, message, errors } : { code, message } };
}

/** Field errors of a payload the schema refused: each field, never the value sent. */
function payloadErrors(error: z.ZodError): NonNullable<FaceError['errors']> {
  return error.issues.flatMap((issue) => {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({
        field: base ? `${base}.${key}` : key,
        // eslint-disable-next-line i18next/no-literal-string -- for the developer: the renderer words each code itself (contracts/words/errors.ts)
        message: 'unknown field',
      }));
    if (issue.code === 'invalid_value') {
      const allowed = issue.values.map(String);
      // eslint-disable-next-line i18next/no-literal-string -- for the developer: the renderer words each code itself (contracts/words/errors.ts)
      return [{ field: base, message: `must be one of ${allowed.join(', ')}`, allowed }];
    }
    return [{ field: base, message: issue.message }];
  });
}

export function createFerryBridge(ipc: IpcRendererSeam): FerryBridge {
  async function invoke(id: string, payload: unknown): Promise<FaceResult<unknown>> {
    // eslint-disable-next-line i18next/no-literal-string -- for the developer: the renderer words each code itself (contracts/words/errors.ts)
    if (typeof id !== 'string' || !KNOWN.has(id)) return refusal('not-found', 'no such call');
    const call = ipcSchema.calls[id as FaceRouteId];
    const sent = payload === undefined ? {} : payload;
    const checked = call.request.safeParse(sent);
    if (!checked.success) {
      return refusal(
        'validation-failed',
        // eslint-disable-next-line i18next/no-literal-string -- for the developer: the renderer words each code itself (contracts/words/errors.ts)
        `invalid payload for ${id}`,
        payloadErrors(checked.error),
      );
    }
    let result: unknown;
    try {
      // The payload as given: main parses it with the route's schemas (and their transforms).
      result = await ipc.invoke(call.channel, sent);
    } catch {
      // eslint-disable-next-line i18next/no-literal-string -- for the developer: the renderer words each code itself (contracts/words/errors.ts)
      return refusal('unavailable', 'the app’s main process did not answer');
    }
    const wire = WireResult.safeParse(result);
    if (!wire.success)
      // eslint-disable-next-line i18next/no-literal-string -- for the developer: the renderer words each code itself (contracts/words/errors.ts)
      return refusal('bad-response', 'the answer from the app’s main process is malformed');
    return wire.data as FaceResult<unknown>;
  }

  function onEvent(listener: (event: FaceEvent) => void): () => void {
    const receive = (_event: unknown, data: unknown) => {
      const checked = ipcSchema.event.schema.safeParse(data);
      // The IPC event itself (its sender, its ports) never reaches the page.
      if (checked.success) listener(checked.data);
    };
    ipc.on(ipcSchema.event.channel, receive);
    return () => {
      ipc.removeListener(ipcSchema.event.channel, receive);
    };
  }

  return Object.freeze({ invoke, onEvent }) as FerryBridge;
}

/** Exposes the bridge as `window.ferry`, the only thing the preload exposes. */
export function exposeFerryBridge(contextBridge: ContextBridgeSeam, ipc: IpcRendererSeam): void {
  contextBridge.exposeInMainWorld(BRIDGE_KEY, createFerryBridge(ipc));
}
