import { describe, expect, it } from 'vitest';

import { checkDomesticDns, type DomesticDnsDeps } from './domestic-dns.js';

const SELF = '127.102.121.53';
const ZONE = 'ferry-resolver.internal';

/** A connected laptop at home in DE whose system resolver is the engine's. */
function deps(over: Partial<DomesticDnsDeps> = {}): DomesticDnsDeps & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    connected: true,
    home: 'DE',
    isHome: (a) => a.startsWith('192.0.2.'),
    resolver: { address: SELF, zone: ZONE },
    name: (cc) => (cc === 'DE' ? 'domestic.example' : null),
    lookup: async (name) => {
      asked.push(name.endsWith(ZONE) ? `<label>.${ZONE}` : name);
      return name.endsWith(ZONE) ? [SELF] : ['192.0.2.8'];
    },
    ...over,
  };
}

const run = (d: DomesticDnsDeps) => checkDomesticDns(d, new AbortController().signal);

describe('the domestic names check', () => {
  it('is ok when the system resolver is the engine’s and the home name resolves at home', async () => {
    const d = deps();
    expect(await run(d)).toMatchObject({
      verdict: 'ok',
      summary: 'the system resolver is Ferry’s, and domestic.example resolves at home (DE)',
    });
    // Its own zone first, with a fresh label, then the home country's name.
    expect(d.asked).toEqual([`<label>.${ZONE}`, 'domestic.example']);
  });

  it('warns when another resolver answers the system’s questions', async () => {
    const other = deps({ lookup: async () => [] });
    expect(await run(other)).toMatchObject({
      verdict: 'warning',
      summary: expect.stringMatching(/not Ferry’s/),
      fix: expect.stringMatching(/connect again/),
    });
  });

  it('warns when the home name resolves abroad, or not at all', async () => {
    const abroad = deps({
      lookup: async (name) => (name.endsWith(ZONE) ? [SELF] : ['192.0.2.8', '198.51.100.9']),
    });
    expect(await run(abroad)).toMatchObject({
      verdict: 'warning',
      summary: 'domestic.example resolves abroad: sites at home may be reached the long way',
    });
    const none = deps({
      lookup: async (name) => {
        if (name.endsWith(ZONE)) return [SELF];
        throw new Error('no answer');
      },
    });
    expect((await run(none)).summary).toMatch(/did not resolve/);
  });

  it('says what it could not check: no home country, no name for it, not connected, no resolver', async () => {
    expect((await run(deps({ home: null, isHome: null }))).summary).toMatch(/no home country/);
    expect((await run(deps({ home: 'XK' }))).summary).toMatch(/no test name is known for XK/);
    expect(await run(deps({ connected: false }))).toMatchObject({ verdict: 'skipped' });
    expect(await run(deps({ resolver: null }))).toMatchObject({ verdict: 'skipped' });
  });
});
