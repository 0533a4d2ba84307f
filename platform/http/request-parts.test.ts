// Request parts through their route's schemas: field errors that name each field and what it
// takes (never the value sent), a room's own words for a schema, and parts a route declares none of.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RouteDef } from '../../contracts/index.js';
import { HttpProblem } from './http-problem.js';
import { fieldErrors, parsePart, readParts, type PartOptions } from './request-parts.js';

const REFUSE: PartOptions = { undeclared: 'refuse' };
const IGNORE: PartOptions = { undeclared: 'ignore' };

function refusal(run: () => unknown): HttpProblem {
  try {
    run();
  } catch (e) {
    if (e instanceof HttpProblem) return e;
    throw e;
  }
  throw new Error('not refused');
}

describe('field errors', () => {
  const Body = z.strictObject({
    protocol: z.enum(['wireguard', 'ferry']),
    nested: z.strictObject({ port: z.number() }).optional(),
  });

  it('names the allowed values of a closed set and the fields of a body', () => {
    const r = Body.safeParse({ protocol: 'openvpn', colour: 'blue', nested: { port: 1, x: 2 } });
    expect(r.success).toBe(false);
    expect(fieldErrors(Body, r.error!, 'body')).toEqual([
      {
        field: 'protocol',
        message: 'must be one of wireguard, ferry',
        allowed: ['wireguard', 'ferry'],
      },
      {
        field: 'nested.x',
        message: 'unknown field in the body',
      },
      {
        field: 'colour',
        message: 'unknown field in the body; the fields are protocol, nested',
        allowed: ['protocol', 'nested'],
      },
    ]);
  });

  it('refuses with validation-failed, each field named once, and no value echoed', () => {
    const e = refusal(() =>
      parsePart(Body, { protocol: 'secret-value', nested: { port: 'x' } }, 'body', REFUSE),
    );
    expect(e.code).toBe('validation-failed');
    expect(e.message).toBe('invalid body: protocol, nested.port');
    expect(JSON.stringify(e.errors)).not.toContain('secret-value');
    // A whole-part failure names the part.
    expect(refusal(() => parsePart(Body, null, 'body', REFUSE)).message).toBe('invalid body: body');
  });

  it('takes a room’s own words for the schemas it has them for', () => {
    const own: PartOptions = {
      undeclared: 'refuse',
      ownWords: (schema) =>
        schema === Body ? [{ field: 'protocol', message: 'the room’s words' }] : undefined,
    };
    expect(refusal(() => parsePart(Body, {}, 'body', own)).errors).toEqual([
      { field: 'protocol', message: 'the room’s words' },
    ]);
    const Other = z.object({ n: z.number() });
    expect(refusal(() => parsePart(Other, {}, 'query', own)).errors?.[0]?.field).toBe('n');
  });
});

describe('request parts', () => {
  const def = {
    method: 'POST',
    path: '/things/:id',
    auth: 'none',
    summary: 'test',
    status: 200,
    params: z.object({ id: z.string().transform((s) => s.toUpperCase()) }),
    body: z.strictObject({ name: z.string().optional() }),
  } satisfies RouteDef;

  it('reads the three parts, an absent body as an empty one', () => {
    expect(readParts(def, { params: { id: 'a' }, query: {}, body: undefined }, REFUSE)).toEqual({
      params: { id: 'A' },
      query: undefined,
      body: {},
    });
  });

  it('refuses or ignores a part the route declares none of, as the room says', () => {
    const input = { params: { id: 'a' }, query: { verbose: '1' }, body: {} };
    const e = refusal(() => readParts(def, input, REFUSE));
    expect(e.message).toBe('this route takes no query');
    expect(e.errors).toEqual([{ field: 'verbose', message: 'unknown field in the query' }]);
    expect(readParts(def, input, IGNORE).query).toBeUndefined();
    // An empty part is no part.
    expect(readParts(def, { ...input, query: {} }, REFUSE).query).toBeUndefined();
  });
});
