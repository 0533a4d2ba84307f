// main's IPC handler table, built from the IPC schema (contracts/ipc.ts): one handler per face
// call that answers only the app's own window, checks the payload, calls the engine port,
// checks the answer and returns `{ok, value} | {ok: false, error: {code, message}}`; and the
// engine's events, checked, pushed to the window on one channel.
import {
  FACE_ROUTE_IDS,
  ipcSchema,
  type FaceError,
  type FaceEvent,
  type FaceResult,
  type FaceRouteId,
} from '../../contracts/index.js';
import type { ElectronSeam, InvokeEventLike } from './electron-seam.js';
import { FaceFailure, faceErrorOf, isBug } from './face-error.js';
import { checkPayload } from './face-payload.js';
import type { EnginePort } from './engine-port.js';

export interface IpcLog {
  warn(o: object, msg: string): void;
  error(o: object, msg: string): void;
}

export interface IpcHandlers {
  /** Removes the handlers and stops forwarding events. */
  dispose(): void;
}

const FORBIDDEN: FaceError = {
  code: 'forbidden',
  message: 'only the Ferry window may use the engine',
};

/**
 * Whether a call comes from the app's own window: its main window's webContents, its top
 * frame, showing the app's own renderer. Anything else (another window, a frame inside the
 * page, a page navigated elsewhere) is refused: fail closed.
 */
export function isTrustedSender(event: InvokeEventLike, seam: ElectronSeam): boolean {
  const contents = seam.mainContents();
  if (!contents || contents.isDestroyed() || event.sender.id !== contents.id) return false;
  const frame = event.senderFrame;
  if (!frame || frame.parent) return false;
  return seam.isAppUrl(frame.url);
}

/** Names of the fields that do not match, never their values (they may be addresses). */
function mismatchAt(error: { issues: { path: PropertyKey[] }[] }): string {
  return [...new Set(error.issues.map((i) => i.path.map(String).join('.') || '(root)'))]
    .slice(0, 5)
    .join(', ');
}

/** One call, answered as a FaceResult; it never throws. */
async function answer(
  id: FaceRouteId,
  payload: unknown,
  port: EnginePort,
  signal: AbortSignal,
  log: IpcLog,
): Promise<FaceResult<unknown>> {
  try {
    const checked = checkPayload(id, payload);
    const value = await port.call(id, checked, signal);
    const parsed = ipcSchema.calls[id].response.safeParse(value);
    if (!parsed.success) {
      // eslint-disable-next-line i18next/no-literal-string -- a contract mismatch (a bug): for the developer and the log
      throw new FaceFailure('internal', 'the engine’s answer does not match the contract', {
        cause: new Error(
          `the answer to ${id} does not match its schema at ${mismatchAt(parsed.error)}`,
        ),
      });
    }
    return { ok: true, value: parsed.data };
  } catch (e) {
    if (isBug(e) || (e instanceof FaceFailure && e.code === 'internal')) {
      const err = e instanceof FaceFailure && e.cause instanceof Error ? e.cause : (e as Error);
      log.error(
        { call: id, err: { name: err?.name, message: err?.message, stack: err?.stack } },
        'bug',
      );
    }
    return { ok: false, error: faceErrorOf(e) };
  }
}

export function registerIpcHandlers(
  seam: ElectronSeam,
  port: EnginePort,
  log: IpcLog,
): IpcHandlers {
  /** Aborted at dispose: calls under way for the window stop with it. */
  const disposing = new AbortController();
  const channels: string[] = [];
  for (const id of FACE_ROUTE_IDS) {
    const { channel } = ipcSchema.calls[id];
    seam.ipcMain.handle(channel, (event, payload) => {
      if (!isTrustedSender(event, seam)) {
        // eslint-disable-next-line i18next/no-literal-string -- a line of the journal
        log.warn({ call: id }, 'refused a call from outside the app’s window');
        return { ok: false, error: FORBIDDEN } satisfies FaceResult<never>;
      }
      return answer(id, payload, port, disposing.signal, log);
    });
    channels.push(channel);
  }

  const unsubscribe = port.subscribe((event: FaceEvent) => {
    const checked = ipcSchema.event.schema.safeParse(event);
    if (!checked.success) {
      // eslint-disable-next-line i18next/no-literal-string -- a line of the journal
      log.warn({ at: mismatchAt(checked.error) }, 'dropped an engine event outside the contract');
      return;
    }
    const contents = seam.mainContents();
    if (!contents || contents.isDestroyed()) return;
    contents.send(ipcSchema.event.channel, checked.data);
  });

  return {
    dispose() {
      unsubscribe();
      disposing.abort();
      for (const channel of channels.splice(0)) seam.ipcMain.removeHandler(channel);
    },
  };
}
