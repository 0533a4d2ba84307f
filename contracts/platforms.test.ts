// The platform table: the shipped entries read the answers their platforms are known to give
// (served with the catalogue's country, proxy verdicts, "not in your region"), and the schema
// refuses entries that could never work.
import { describe, expect, it } from 'vitest';
import {
  PlatformsFile,
  SHIPPED_PLATFORMS,
  findPlatform,
  mergePlatforms,
  readAnswer,
  type PlatformAnswer,
} from './index.js';

const answer = (a: Partial<PlatformAnswer>): PlatformAnswer => ({
  status: 200,
  headers: {},
  locations: [],
  body: '',
  ...a,
});
const read = (id: string, a: Partial<PlatformAnswer>) =>
  readAnswer(SHIPPED_PLATFORMS[id]!, answer(a));

describe('the shipped platform table', () => {
  it('has the platforms users ask about, each with a probe URL and a served answer', () => {
    expect(Object.keys(SHIPPED_PLATFORMS).sort()).toEqual([
      'bbc-iplayer',
      'bilibili',
      'disney-plus',
      'hulu',
      'netflix',
      'prime-video',
      'youtube',
    ]);
    for (const p of Object.values(SHIPPED_PLATFORMS)) expect(p.probe.url).toMatch(/^https:\/\//);
  });

  it('finds a platform by id or alias in any letter case', () => {
    expect(findPlatform(SHIPPED_PLATFORMS, 'Netflix')).toBe('netflix');
    expect(findPlatform(SHIPPED_PLATFORMS, 'Disney+')).toBe('disney-plus');
    expect(findPlatform(SHIPPED_PLATFORMS, 'iplayer')).toBe('bbc-iplayer');
    expect(findPlatform(SHIPPED_PLATFORMS, 'PRIME')).toBe('prime-video');
    expect(findPlatform(SHIPPED_PLATFORMS, 'myspace')).toBeUndefined();
    expect(findPlatform(SHIPPED_PLATFORMS, 'constructor')).toBeUndefined();
  });

  it('Netflix: the country from the redirect, US in place, originals-only and not offered', () => {
    expect(
      read('netflix', { locations: ['https://www.netflix.com/jp-en/title/81280792'] }),
    ).toEqual({ kind: 'served', catalogRegion: 'JP' });
    expect(read('netflix', { locations: ['https://www.netflix.com/gb/title/81280792'] })).toEqual({
      kind: 'served',
      catalogRegion: 'GB',
    });
    expect(read('netflix', {})).toEqual({ kind: 'served', catalogRegion: 'US' });
    expect(read('netflix', { body: '<div data-country="KR">' })).toEqual({
      kind: 'served',
      catalogRegion: 'KR',
    });
    expect(read('netflix', { status: 404 })).toEqual({ kind: 'proxy' });
    expect(read('netflix', { status: 403 })).toEqual({ kind: 'unavailable' });
    expect(read('netflix', { status: 503 })).toEqual({ kind: 'unrecognised' });
  });

  it('YouTube: the GL of the page, Google’s sorry page and the bot check, google.cn', () => {
    expect(read('youtube', { body: '{"INNERTUBE_CONTEXT_GL":"JP","x":1}' })).toEqual({
      kind: 'served',
      catalogRegion: 'JP',
    });
    expect(read('youtube', { body: '"countryCode":"DE"' })).toEqual({
      kind: 'served',
      catalogRegion: 'DE',
    });
    expect(read('youtube', { body: '<html>nothing to read</html>' })).toEqual({
      kind: 'served',
      catalogRegion: null,
    });
    expect(
      read('youtube', {
        status: 429,
        locations: ['https://www.google.com/sorry/index?continue=x'],
      }),
    ).toEqual({ kind: 'proxy' });
    expect(read('youtube', { body: 'Sign in to confirm you’re not a bot' })).toEqual({
      kind: 'proxy',
    });
    expect(read('youtube', { locations: ['https://www.google.cn/'] })).toEqual({
      kind: 'unavailable',
    });
  });

  it('Disney+: the locale’s country, the unavailable page, a banned location', () => {
    expect(read('disney-plus', { locations: ['https://www.disneyplus.com/en-gb'] })).toEqual({
      kind: 'served',
      catalogRegion: 'GB',
    });
    expect(read('disney-plus', { locations: ['https://www.disneyplus.com/ja-jp/home'] })).toEqual({
      kind: 'served',
      catalogRegion: 'JP',
    });
    expect(read('disney-plus', {})).toEqual({ kind: 'served', catalogRegion: null });
    expect(
      read('disney-plus', { locations: ['https://preview.disneyplus.com/unavailable/'] }),
    ).toEqual({ kind: 'unavailable' });
    expect(read('disney-plus', { status: 403, body: '{"errors":["forbidden-location"]}' })).toEqual(
      { kind: 'proxy' },
    );
  });

  it('BBC iPlayer: media is the UK catalogue; geolocation is unavailable', () => {
    expect(read('bbc-iplayer', { body: 'JS_callbacks0({"media":[{"kind":"video"}]});' })).toEqual({
      kind: 'served',
      catalogRegion: 'GB',
    });
    expect(read('bbc-iplayer', { body: 'JS_callbacks0({"result":"geolocation"});' })).toEqual({
      kind: 'unavailable',
    });
  });

  it('Hulu: the US only; the anonymous-proxy page and GEO_BLOCKED', () => {
    expect(read('hulu', { body: '<html>Hulu</html>' })).toEqual({
      kind: 'served',
      catalogRegion: 'US',
    });
    expect(
      read('hulu', {
        body: 'we noticed that you are trying to access Hulu through an anonymous proxy tool',
      }),
    ).toEqual({ kind: 'proxy' });
    expect(read('hulu', { body: '{"name":"GEO_BLOCKED"}' })).toEqual({ kind: 'unavailable' });
  });

  it('Prime Video: currentTerritory; isServiceRestricted; the VPN message', () => {
    expect(read('prime-video', { body: '{"currentTerritory":"JP"}' })).toEqual({
      kind: 'served',
      catalogRegion: 'JP',
    });
    expect(read('prime-video', { body: '{"isServiceRestricted":true}' })).toEqual({
      kind: 'unavailable',
    });
    expect(
      read('prime-video', {
        body: 'Your device is connected to the Internet using a VPN or proxy service',
      }),
    ).toEqual({ kind: 'proxy' });
  });

  it('Bilibili: code 0 plays (CN), -10403 is not in this area, anything else unrecognised', () => {
    expect(read('bilibili', { body: '{"code":0,"message":"success","result":{}}' })).toEqual({
      kind: 'served',
      catalogRegion: 'CN',
    });
    expect(
      read('bilibili', { body: '{"code":-10403,"message":"抱歉您所在地区不可观看！"}' }),
    ).toEqual({ kind: 'unavailable' });
    expect(read('bilibili', { body: '{"code":-412,"message":"请求被拦截"}' })).toEqual({
      kind: 'unrecognised',
    });
  });
});

describe('a platforms file', () => {
  const entry = {
    name: 'Mock',
    countries: null,
    probe: { url: 'http://198.18.0.5:8100/title/1' },
    served: { status: [200] },
    region: [{ from: 'body', pattern: 'region=([a-z]{2})' }],
  };

  it('adds entries and replaces whole ones', () => {
    const file = PlatformsFile.parse({ platforms: { mock: entry, netflix: entry } });
    const table = mergePlatforms(SHIPPED_PLATFORMS, file.platforms);
    expect(table.mock).toMatchObject({ name: 'Mock', proxy: [], unavailable: [], aliases: [] });
    expect(table.netflix!.probe.url).toBe('http://198.18.0.5:8100/title/1');
    expect(table.youtube).toBe(SHIPPED_PLATFORMS.youtube);
  });

  it('refuses a region pattern without a capture group, a broken pattern, an empty match', () => {
    const bad = (patch: object) =>
      PlatformsFile.safeParse({ platforms: { mock: { ...entry, ...patch } } }).success;
    expect(bad({})).toBe(true);
    expect(bad({ region: [{ from: 'body', pattern: 'region=[a-z]{2}' }] })).toBe(false);
    expect(bad({ proxy: [{ body: '([' }] })).toBe(false);
    expect(bad({ served: {} })).toBe(false);
    expect(bad({ probe: { url: 'ftp://x/' } })).toBe(false);
    expect(bad({ region: [{ from: 'fixed', country: 'jp' }] })).toBe(false);
    expect(PlatformsFile.safeParse({ platforms: { 'Not An Id': entry } }).success).toBe(false);
  });
});
