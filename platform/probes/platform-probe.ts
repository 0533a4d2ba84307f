// One streaming platform asked as its table entry says (redirects followed by hand, cookies kept
// along the way, the body capped, the whole exchange bounded in time), and what the answer means
// for a node: the engine's stream-test and the relays' platform checks both probe through this.
// The transport is injected (`fetch`): Node's in production, a stand-in in tests.
import {
  readAnswer,
  type PlatformAnswer,
  type PlatformCheckVerdict,
  type PlatformDef,
} from '../../contracts/platforms.js';

/** What browsers send; several platforms answer bare clients with something else. */
export const PROBE_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
export const PROBE_MAX_REDIRECTS = 5;
/** Enough for the markers the table looks for near a page's head; the rest is not read. */
export const PROBE_MAX_BODY_BYTES = 2 * 1024 * 1024;
export const PROBE_TIMEOUT_MS = 10_000;

/**
 * The part of `fetch` a probe uses. It must not follow redirects itself (`redirect: 'manual'`
 * is passed) and must give the redirect's Location header, as Node's fetch (undici) does.
 */
export type ProbeFetch = (
  url: string,
  init: { headers: Record<string, string>; redirect: 'manual'; signal: AbortSignal },
) => Promise<Response>;

export interface ProbeOptions {
  fetch: ProbeFetch;
  /** The caller's cancellation: a cancelled probe throws (the signal's reason). */
  signal?: AbortSignal | undefined;
  /** For the whole exchange, every redirect and the body included (default 10 s). */
  timeoutMs?: number | undefined;
}

export type ProbeOutcome =
  | { ok: true; answer: PlatformAnswer }
  | { ok: false; reason: 'timeout' | 'network' | 'too-many-redirects' };

/** Reads at most `max` bytes of a body, then lets the rest go. */
async function readCapped(body: ReadableStream<Uint8Array> | null, max: number): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const all = new Uint8Array(Math.min(size, max));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, all.length - at);
    all.set(part, at);
    at += part.length;
    if (at >= all.length) break;
  }
  return new TextDecoder().decode(all);
}

/** name=value of each Set-Cookie, kept per host for the redirects that follow (as a browser). */
function keepCookies(jar: Map<string, Map<string, string>>, url: URL, headers: Headers): void {
  const lines = typeof headers.getSetCookie === 'function' ? headers.getSetCookie() : [];
  for (const line of lines) {
    const pair = line.split(';', 1)[0]!;
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    let cookies = jar.get(url.host);
    if (!cookies) jar.set(url.host, (cookies = new Map()));
    cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
}

class ProbeTimeout extends Error {}

/**
 * Asks the platform as its table entry says, following redirects one by one so that each target
 * is seen, within `timeoutMs` for the whole exchange: a transport that ignores the abort still
 * gets no more time than that.
 */
export async function probePlatform(
  platform: PlatformDef,
  opts: ProbeOptions,
): Promise<ProbeOutcome> {
  const timeoutMs = opts.timeoutMs ?? PROBE_TIMEOUT_MS;
  // Aborted by the deadline or by the caller. (Not AbortSignal.any: on Node 20 it keeps a
  // reference per call in a long-lived caller's signal, a relay's, for good.)
  const inner = new AbortController();
  const signal = inner.signal;
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      const e = new ProbeTimeout('the probe took too long');
      inner.abort(e);
      reject(e);
    }, timeoutMs);
  });
  // Whichever comes first settles the probe; the other's rejection must not go unhandled.
  expired.catch(() => undefined);
  let onCancel: (() => void) | undefined;
  const cancelled = new Promise<never>((_resolve, reject) => {
    if (!opts.signal) return;
    const caller = opts.signal;
    onCancel = () => {
      inner.abort(caller.reason);
      reject(caller.reason);
    };
    if (caller.aborted) onCancel();
    else caller.addEventListener('abort', onCancel, { once: true });
  });
  cancelled.catch(() => undefined);

  const exchange = async (): Promise<ProbeOutcome> => {
    const jar = new Map<string, Map<string, string>>();
    const locations: string[] = [];
    let url = new URL(platform.probe.url);
    for (;;) {
      const cookies = jar.get(url.host);
      const headers: Record<string, string> = {
        'user-agent': PROBE_USER_AGENT,
        accept: 'text/html,application/json;q=0.9,*/*;q=0.8',
        ...platform.probe.headers,
      };
      if (cookies && cookies.size > 0) {
        const sent = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
        headers.cookie = headers.cookie ? `${headers.cookie}; ${sent}` : sent;
      }
      const res = await opts.fetch(url.href, { headers, redirect: 'manual', signal });
      keepCookies(jar, url, res.headers);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel().catch(() => undefined);
        if (locations.length >= PROBE_MAX_REDIRECTS)
          return { ok: false, reason: 'too-many-redirects' };
        url = new URL(location, url);
        locations.push(url.href);
        continue;
      }
      const body = await readCapped(res.body, PROBE_MAX_BODY_BYTES);
      const answerHeaders: Record<string, string> = {};
      res.headers.forEach((value, name) => (answerHeaders[name.toLowerCase()] = value));
      return { ok: true, answer: { status: res.status, headers: answerHeaders, locations, body } };
    }
  };

  try {
    return await Promise.race([exchange(), expired, cancelled]);
  } catch (e) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? e;
    return { ok: false, reason: timedOut ? 'timeout' : 'network' };
  } finally {
    clearTimeout(timer);
    // A caller's long-lived signal (a relay's) must not collect one listener per probe.
    if (onCancel) opts.signal?.removeEventListener('abort', onCancel);
    // Whatever is still in flight (a transport that ignored the deadline) is told to stop.
    if (!inner.signal.aborted) inner.abort(new ProbeTimeout('the probe is over'));
  }
}

// ---- what a probe says about a node ---------------------------------------------------------------

export interface PlatformVerification {
  /** The platform answered with an answer its table entry recognises. */
  reachable: boolean;
  /** The catalogue's country, when the answer was served and a reader read it. */
  region: string | null;
  verdict: PlatformCheckVerdict;
}

/**
 * The probe's outcome read against the table, without a node's country to compare with (a
 * relay checks itself; whether the catalogue is the region's is the reader's business).
 */
export function verifyPlatform(def: PlatformDef, outcome: ProbeOutcome): PlatformVerification {
  if (!outcome.ok) return { reachable: false, region: null, verdict: 'unreachable' };
  const reading = readAnswer(def, outcome.answer);
  switch (reading.kind) {
    case 'served':
      return { reachable: true, region: reading.catalogRegion, verdict: 'ok' };
    case 'proxy':
      return { reachable: true, region: null, verdict: 'proxy-detected' };
    case 'unavailable':
      return { reachable: true, region: null, verdict: 'unavailable' };
    case 'unrecognised':
      return { reachable: false, region: null, verdict: 'unreachable' };
  }
}
