// The browsers signed in to the web graphical mode, through a fake transport: listed, another
// one ended, this one's own end signing the page out, and a session the host ended or let expire.
import { describe, expect, it } from 'vitest';
import { FaceCallError } from '../transport/face-call-error.js';
import { signedInEngine } from './engine-answers.fake.js';
import { createEngineStore, type EngineStore } from './engine-store.js';
import type { FakeTransport } from '../transport/transport.fake.js';

/** Lets every pending promise of the store settle. */
const settle = () => new Promise((r) => setTimeout(r, 0));

async function upAndRead(engine: FakeTransport): Promise<EngineStore> {
  const store = createEngineStore(engine);
  store.getState().actions.start();
  engine.link('up');
  await settle();
  engine.calls.length = 0;
  return store;
}

describe('the browsers signed in (the web graphical mode)', () => {
  const session = (id: string, current: boolean) => ({
    id,
    created_at: '2026-03-01T08:00:00.000Z',
    last_seen_at: '2026-03-01T08:05:00.000Z',
    expires_at: '2026-03-01T20:00:00.000Z',
    current,
  });

  function webEngine() {
    const engine = signedInEngine();
    let sessions = [session('mine', true), session('theirs', false)];
    const ended: string[] = [];
    engine.browserSessions = {
      list: async () => sessions,
      end: async (id) => {
        if (!sessions.some((s) => s.id === id))
          throw new FaceCallError({ code: 'not-found', message: 'no such browser is signed in' });
        ended.push(id);
        sessions = sessions.filter((s) => s.id !== id);
      },
    };
    return { engine, ended };
  }

  it('are not there in the desktop app', async () => {
    const store = await upAndRead(signedInEngine());
    expect(store.getState().browserSessionsOffered).toBe(false);
    await store.getState().actions.loadBrowserSessions();
    expect(store.getState().browserSessions).toBeNull();
  });

  it('lists them; ending another browser leaves this one signed in', async () => {
    const { engine, ended } = webEngine();
    const store = await upAndRead(engine);
    expect(store.getState().browserSessionsOffered).toBe(true);
    await store.getState().actions.loadBrowserSessions();
    expect(store.getState().browserSessions?.map((s) => s.id)).toEqual(['mine', 'theirs']);
    await store.getState().actions.endBrowserSession('theirs');
    expect(ended).toEqual(['theirs']);
    expect(store.getState().browserSessions?.map((s) => s.id)).toEqual(['mine']);
    expect(store.getState().link).toBe('up');
    // One already gone: said, and the list read again.
    await store.getState().actions.endBrowserSession('theirs');
    expect(store.getState().error?.words).toMatch(/no such browser/i);
  });

  it('signing this browser out signs the page out', async () => {
    const { engine, ended } = webEngine();
    const store = await upAndRead(engine);
    await store.getState().actions.loadBrowserSessions();
    await store.getState().actions.endBrowserSession('mine');
    expect(ended).toEqual(['mine']);
    expect(store.getState().link).toBe('signed-out');
  });

  it('a session the host ended or let expire: signed out, and nothing is read again', async () => {
    const { engine } = webEngine();
    const store = await upAndRead(engine);
    engine.link('signed-out');
    await settle();
    expect(store.getState().link).toBe('signed-out');
    expect(engine.ids()).toEqual([]);
  });
});
