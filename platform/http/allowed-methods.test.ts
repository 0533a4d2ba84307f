// The methods of each known path, under each prefix it is served at, for 405 and its Allow.
import { describe, expect, it } from 'vitest';
import type { RouteDef } from '../../contracts/index.js';
import { AllowedMethods, methodsOf, pathsOf } from './allowed-methods.js';

const route = (method: RouteDef['method'], path: string, stream?: boolean): RouteDef => ({
  method,
  path,
  auth: 'none',
  summary: '',
  status: 200,
  ...(stream ? { stream: 'text/event-stream' as const } : {}),
});

describe('allowed methods', () => {
  it('answers HEAD beside GET, but not for a stream', () => {
    expect(methodsOf(route('GET', '/a'))).toEqual(['GET', 'HEAD']);
    expect(methodsOf(route('GET', '/a', true))).toEqual(['GET']);
    expect(methodsOf(route('DELETE', '/a'))).toEqual(['DELETE']);
  });

  it('knows each path under each prefix, with its parameters, its methods sorted', () => {
    const allowed = new AllowedMethods(
      ['/v1', '/api/v1'],
      [
        ...pathsOf({
          one: route('PATCH', '/devices/:id'),
          two: route('GET', '/devices/:id'),
          three: route('DELETE', '/devices/:id'),
          events: route('GET', '/events', true),
        }),
        { path: '/openapi.json', methods: ['GET', 'HEAD'] },
      ],
    );
    expect(allowed.of('/v1/devices/dev_1')).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    expect(allowed.of('/api/v1/devices/dev_1?x=1')).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    expect(allowed.of('/api/v1/events')).toEqual(['GET']);
    expect(allowed.of('/v1/openapi.json')).toEqual(['GET', 'HEAD']);
    // Unknown: no prefix, another prefix, a parameter spanning segments, a path with a dot.
    expect(allowed.of('/devices/dev_1')).toBeUndefined();
    expect(allowed.of('/v2/devices/dev_1')).toBeUndefined();
    expect(allowed.of('/v1/devices/a/b')).toBeUndefined();
    expect(allowed.of('/v1/openapiXjson')).toBeUndefined();
  });
});
