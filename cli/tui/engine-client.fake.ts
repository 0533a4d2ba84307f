// The terminal UI's client seam in memory: the calls of TuiClient straight to an engine (the
// in-memory FakeEngine in tests), its events as the local API's stream sends them (the status
// at once, then each event), and the engine going away and coming back as a socket would.
// A request's body and query are read by the route's schemas first, as the local API does.
import {
  ApiError,
  SplitRuleQuery,
  SplitRuleRequest,
  type EventStream,
} from '../../contracts/index.js';
import type { EngineApi, EngineEvent } from '../../engine/engine-api.js';
import type { TuiClient } from './controller.js';

type StreamEvent = TuiClient['events'] extends (...a: never[]) => Promise<EventStream<infer E>>
  ? E
  : never;

function toEvent(e: EngineEvent): StreamEvent {
  return e.type === 'status'
    ? { event: 'status', data: e.status, id: undefined }
    : { event: 'notice', data: e.notice, id: undefined };
}

/** What a call fails with when nothing listens on the socket (as the route client's does). */
function unreachable(route: string): ApiError {
  return new ApiError({
    code: 'unreachable',
    detail: 'no answer from the server (ECONNREFUSED)',
    route,
  });
}

export class EngineClientFake {
  /** Every call made, by route name, with its input. */
  readonly calls: { route: string; input: unknown }[] = [];
  #away = false;
  readonly #streams = new Set<(failure: ApiError | null) => void>();

  constructor(readonly engine: EngineApi) {}

  /** The engine stops answering; open streams break. */
  goAway(): void {
    this.#away = true;
    for (const end of [...this.#streams]) end(unreachable('GET /events'));
  }

  comeBack(): void {
    this.#away = false;
  }

  get openStreams(): number {
    return this.#streams.size;
  }

  private call<T>(route: string, input: unknown, work: () => Promise<T> | T): Promise<T> {
    this.calls.push({ route, input });
    if (this.#away) return Promise.reject(unreachable(route));
    return Promise.resolve().then(work);
  }

  private stream(signal: AbortSignal | undefined): EventStream<StreamEvent> {
    const queue: StreamEvent[] = [toEvent({ type: 'status', status: this.engine.status() })];
    let wake: (() => void) | null = null;
    let ended = false;
    let failure: ApiError | null = null;
    const push = (e: EngineEvent) => {
      queue.push(toEvent(e));
      wake?.();
    };
    const unsubscribe = this.engine.subscribe(push);
    const end = (why: ApiError | null) => {
      if (ended) return;
      ended = true;
      failure = why;
      unsubscribe();
      this.#streams.delete(end);
      signal?.removeEventListener('abort', close);
      wake?.();
    };
    const close = () => end(null);
    this.#streams.add(end);
    signal?.addEventListener('abort', close, { once: true });
    async function* events(): AsyncGenerator<StreamEvent> {
      try {
        for (;;) {
          const next = queue.shift();
          if (next) {
            yield next;
            continue;
          }
          if (ended) {
            if (failure) throw failure;
            return;
          }
          await new Promise<void>((r) => (wake = r));
          wake = null;
        }
      } finally {
        close();
      }
    }
    const iterator = events();
    return {
      response: {} as Response,
      close,
      [Symbol.asyncIterator]: () => iterator,
    };
  }

  /** The client the controller takes. */
  readonly client: TuiClient = {
    events: (input = {}) => this.call('events', input, () => this.stream(input.signal)),
    connect: (input = {}) =>
      this.call('connect', input, () =>
        this.engine.connect((input.body ?? {}) as Parameters<EngineApi['connect']>[0]),
      ),
    disconnect: (input = {}) => this.call('disconnect', input, () => this.engine.disconnect()),
    getConfig: (input = {}) => this.call('getConfig', input, () => this.engine.getConfig()),
    setConfigKey: (input) =>
      this.call('setConfigKey', input, () =>
        this.engine.setConfigKey(input.params.key, input.body.value),
      ),
    listRegions: (input = {}) => this.call('listRegions', input, () => this.engine.listRegions()),
    latencyCheck: (input = {}) =>
      this.call('latencyCheck', input, () =>
        this.engine.latencyCheck({ all: input.body?.all ?? false, count: input.body?.count ?? 5 }),
      ),
    listSplitRules: (input = {}) =>
      this.call('listSplitRules', input, () => this.engine.listSplitRules()),
    addSplitRule: (input) =>
      this.call('addSplitRule', input, () =>
        this.engine.addSplitRule(SplitRuleRequest.parse(input.body)),
      ),
    removeSplitRule: (input) =>
      this.call('removeSplitRule', input, () =>
        this.engine.removeSplitRule(SplitRuleQuery.parse(input.query)),
      ),
  } as TuiClient;
}
