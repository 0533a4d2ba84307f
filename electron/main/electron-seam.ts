// The part of Electron the IPC handlers use, as narrow interfaces: main.ts passes the real
// ipcMain and window, the tests a fake (the Electron binary is not needed to test main's logic).

/** The parts of IpcMainInvokeEvent the handlers read to decide whether to answer at all. */
export interface InvokeEventLike {
  /** The webContents that sent the call. */
  readonly sender: { readonly id: number };
  /** The frame that sent it; null once it navigated away or was destroyed. */
  readonly senderFrame: { readonly url: string; readonly parent: unknown } | null;
}

export interface IpcMainSeam {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

/** The main window's webContents, as far as IPC goes. */
export interface WebContentsSeam {
  readonly id: number;
  isDestroyed(): boolean;
  send(channel: string, ...args: unknown[]): void;
}

export interface ElectronSeam {
  ipcMain: IpcMainSeam;
  /** The main window's webContents, or undefined while there is none. */
  mainContents(): WebContentsSeam | undefined;
  /** Whether a URL is the app's own renderer (renderer-protocol.ts isAppUrl). */
  isAppUrl(url: string): boolean;
}
