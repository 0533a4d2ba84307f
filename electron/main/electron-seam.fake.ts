// An in-memory ElectronSeam for the tests of main's IPC: an ipcMain that tests can invoke the way
// a renderer would (with the sender they choose), and a window that records what it was sent.
import type {
  ElectronSeam,
  InvokeEventLike,
  IpcMainSeam,
  WebContentsSeam,
} from './electron-seam.js';
import { APP_ENTRY_URL, isAppUrl } from './renderer-protocol.js';

type Listener = (event: InvokeEventLike, ...args: unknown[]) => unknown;

export class FakeIpcMain implements IpcMainSeam {
  readonly handlers = new Map<string, Listener>();

  handle(channel: string, listener: Listener): void {
    // Electron throws on a second handler for a channel; so does the fake.
    if (this.handlers.has(channel)) throw new Error(`a second handler for ${channel}`);
    this.handlers.set(channel, listener);
  }

  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }

  /** What ipcRenderer.invoke(channel, payload) from `event`'s sender would resolve to. */
  async invoke(channel: string, event: InvokeEventLike, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler(event, ...args);
  }
}

export class FakeWebContents implements WebContentsSeam {
  readonly sent: { channel: string; args: unknown[] }[] = [];
  destroyed = false;

  constructor(readonly id: number) {}

  isDestroyed(): boolean {
    return this.destroyed;
  }

  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args });
  }
}

export interface FakeSeam extends ElectronSeam {
  ipcMain: FakeIpcMain;
  window: FakeWebContents | undefined;
}

export function fakeSeam(windowId = 7): FakeSeam {
  const seam: FakeSeam = {
    ipcMain: new FakeIpcMain(),
    window: new FakeWebContents(windowId),
    mainContents: () => seam.window,
    isAppUrl,
  };
  return seam;
}

/** A call from the app's own window, top frame, on its own page. */
export function fromApp(windowId = 7, url = APP_ENTRY_URL): InvokeEventLike {
  return { sender: { id: windowId }, senderFrame: { url, parent: null } };
}
