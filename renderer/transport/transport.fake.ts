// An in-memory EngineTransport for tests: answers per route (values, errors or promises the
// test settles), a record of every call, and events and link changes pushed by the test.
import { faceCodeOf, type FaceCode } from '../../contracts/face-codes.js';
import type { FaceEvent, FacePayload, FaceRouteId, FaceValue } from '../../contracts/ipc.js';
import type {
  BrowserSessionsAccess,
  TransportState,
  EngineListener,
  EngineTransport,
} from './engine-transport.js';
import { FaceCallError } from './face-call-error.js';

type Answer<K extends FaceRouteId> = (
  payload: FacePayload<K>,
) => FaceValue<K> | Promise<FaceValue<K>>;
export type FakeAnswers = { [K in FaceRouteId]?: Answer<K> };

export interface FakeCall {
  id: FaceRouteId;
  payload: unknown;
}

export class FakeTransport implements EngineTransport {
  readonly calls: FakeCall[] = [];
  private readonly listeners = new Set<EngineListener>();
  /** The web graphical mode's browsers, when the test gives them (the app has none). */
  browserSessions: BrowserSessionsAccess | undefined;

  constructor(public answers: FakeAnswers = {}) {}

  answer<K extends FaceRouteId>(id: K, fn: Answer<K>): this {
    (this.answers as Record<string, unknown>)[id] = fn;
    return this;
  }

  /** Makes `id` refuse with this error from now on. */
  refuse(id: FaceRouteId, code: FaceCode, message: string, errors?: FaceCallError['errors']): this {
    (this.answers as Record<string, unknown>)[id] = () => {
      throw new FaceCallError({ code, message, ...(errors ? { errors } : {}) });
    };
    return this;
  }

  async call<K extends FaceRouteId>(id: K, payload: FacePayload<K>): Promise<FaceValue<K>> {
    this.calls.push({ id, payload });
    const fn = this.answers[id] as Answer<K> | undefined;
    // A code no build knows: a test that forgot an answer sees it, and no words are made for it.
    const code = faceCodeOf('fake-unanswered');
    if (!fn) throw new FaceCallError({ code, message: `no answer for ${id}` });
    return await fn(payload);
  }

  /** The ids called so far, in order. */
  ids(): FaceRouteId[] {
    return this.calls.map((c) => c.id);
  }

  subscribe(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  emit(event: FaceEvent): void {
    for (const l of this.listeners) l.event(event);
  }

  link(state: TransportState): void {
    for (const l of this.listeners) l.connection(state);
  }
}
