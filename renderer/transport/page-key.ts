// The web graphical mode's page key, the second secret of a session beside its HttpOnly cookie.
// The engine host hands it over in the fragment of the app's address at sign-in (`/#page=KEY`):
// browsers never send a fragment to any server, so no listener but this page ever sees it. The
// page takes it out of the address at once and keeps it in sessionStorage: this tab's own
// storage, which survives a reload (a user who reloads expects to stay signed in) and which no
// other origin, other local ports included, can read.
import { PAGE_KEY_FRAGMENT, WEB_SECRET } from '../../contracts/browser-sessions.js';

export const PAGE_KEY_STORAGE = 'ferry-page-key';

/** The parts of the window the key is taken from (injected: tests run without a DOM). */
export interface PageKeyPlace {
  location: Pick<Location, 'hash' | 'pathname' | 'search'>;
  history: Pick<History, 'state' | 'replaceState'>;
  /** sessionStorage; a getter, since a browser may refuse it (then the key lives in memory). */
  storage: () => Pick<Storage, 'getItem' | 'setItem'>;
}

function stored(place: PageKeyPlace): string | undefined {
  try {
    return place.storage().getItem(PAGE_KEY_STORAGE) ?? undefined;
  } catch {
    return undefined;
  }
}

function keep(place: PageKeyPlace, key: string): void {
  try {
    place.storage().setItem(PAGE_KEY_STORAGE, key);
  } catch {
    // Storage refused: the key lives in this page's memory only (a reload signs out).
  }
}

/** This tab's page key: just handed over in the fragment, else kept from before; or none. */
export function takePageKey(place: PageKeyPlace): string | undefined {
  const { hash, pathname, search } = place.location;
  const prefix = `#${PAGE_KEY_FRAGMENT}=`;
  if (!hash.startsWith(prefix)) return stored(place);
  // Out of the address bar and the history at once, whatever it holds.
  place.history.replaceState(place.history.state, '', pathname + search);
  const key = hash.slice(prefix.length);
  if (!WEB_SECRET.test(key)) return undefined;
  keep(place, key);
  return key;
}
