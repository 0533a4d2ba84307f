// The preload of the app's window (sandboxed, context-isolated): exposes `window.ferry`, a
// FerryBridge over IPC, and nothing else. Bundled into one CommonJS file (dist/electron/
// preload.cjs) by scripts/build-electron.ts: a sandboxed preload may require only `electron`.
import { contextBridge, ipcRenderer } from 'electron';
import { exposeFerryBridge } from './bridge.js';

exposeFerryBridge(contextBridge, ipcRenderer);
