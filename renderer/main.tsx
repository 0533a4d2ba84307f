// The renderer's entry: the transport this page has (IPC in the app, HTTP in the web
// graphical mode), the replica of the engine over it, and the app.
import './zod-jitless.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createEngineStore } from './store/engine-store.js';
import { takePageKey } from './transport/page-key.js';
import { pickTransport } from './transport/pick-transport.js';
import { App } from './ui/app.js';
import { LanguageProvider } from './ui/i18n/language-provider.js';
import { EngineStoreProvider } from './ui/store-context.js';

const transport = pickTransport({
  bridge: window.ferry,
  origin: window.location.origin,
  fetch: (url, init) => window.fetch(url, init),
  pageKey: () =>
    takePageKey({
      location: window.location,
      history: window.history,
      storage: () => window.sessionStorage,
    }),
});
const store = createEngineStore(transport);
store.getState().actions.start();

const root = document.getElementById('app');
if (!root) throw new Error('index.html has no #app element');
createRoot(root).render(
  <StrictMode>
    <EngineStoreProvider store={store}>
      <LanguageProvider>
        <App />
      </LanguageProvider>
    </EngineStoreProvider>
  </StrictMode>,
);
