// GET /diagnostics: what the control plane publishes for clients' `netcli diagnose` (the DNS
// leak-test zone and the IPv6 probe), on both prefixes, through the typed client, from
// ferry-server's options; and the Date header of /health the clock check reads.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlDiagnostics, createControlClient } from '../contracts/index.js';
import { buildControlPlane, type ControlPlane } from './app.js';
import { injectFetch } from './testing/inject-fetch.js';
import { SERVER_BIN, startServerProcess, type ServerProcess } from './testing/server-process.js';

describe('GET /diagnostics', () => {
  const planes: ControlPlane[] = [];
  const dirs: string[] = [];
  let proc: ServerProcess | null = null;
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()));
    await proc?.stop();
    proc = null;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const dataDir = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'ferry-diag-'));
    dirs.push(d);
    return d;
  };

  const plane = async (extra: { dnsLeakZone?: string; ipv6Probe?: string } = {}) => {
    const p = await buildControlPlane({
      dataDir: dataDir(),
      rateLimits: undefined,
      logger: pino({ level: 'silent' }),
      validateResponses: true,
      ...extra,
    });
    planes.push(p);
    return p;
  };

  it('publishes the zone and the probe on both prefixes, to anyone', async () => {
    const p = await plane({ dnsLeakZone: 'Whoami.Ferry-Test.', ipv6Probe: '[2001:db8::7]:443' });
    for (const prefix of ['/api/v1', '/v1']) {
      const res = await p.app.inject({ method: 'GET', url: `${prefix}/diagnostics` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        dns_leak_zone: 'whoami.ferry-test',
        ipv6_probe: '[2001:db8::7]:443',
      });
    }
    const client = createControlClient({ baseUrl: 'http://cp.test', fetch: injectFetch(p.app) });
    expect(await client.diagnostics()).toEqual({
      dns_leak_zone: 'whoami.ferry-test',
      ipv6_probe: '[2001:db8::7]:443',
    });
  });

  it('says null for what it was not given', async () => {
    const p = await plane();
    const res = await p.app.inject({ method: 'GET', url: '/v1/diagnostics' });
    expect(ControlDiagnostics.parse(res.json())).toEqual({ dns_leak_zone: null, ipv6_probe: null });
  });

  it('refuses a probe that is not [IPv6]:port, and a zone that is not one', () => {
    expect(
      ControlDiagnostics.safeParse({ dns_leak_zone: null, ipv6_probe: '[192.0.2.1]:80' }),
    ).toMatchObject({ success: false });
    expect(
      ControlDiagnostics.safeParse({ dns_leak_zone: null, ipv6_probe: '[::1]:0' }),
    ).toMatchObject({ success: false });
    expect(ControlDiagnostics.safeParse({ dns_leak_zone: 'a..b', ipv6_probe: null })).toMatchObject(
      {
        success: false,
      },
    );
  });

  it('takes both from ferry-server’s options, and a date on every answer (the clock check)', async () => {
    proc = await startServerProcess([
      '--data-dir',
      dataDir(),
      '--dns-leak-zone',
      'whoami.ferry-test',
      '--ipv6-probe',
      '[fd00:53::2]:8443',
    ]);
    const res = await fetch(`${proc.baseUrl}/v1/diagnostics`);
    expect(await res.json()).toEqual({
      dns_leak_zone: 'whoami.ferry-test',
      ipv6_probe: '[fd00:53::2]:8443',
    });
    const health = await fetch(`${proc.baseUrl}/api/v1/health`);
    const date = Date.parse(health.headers.get('date') ?? '');
    expect(Math.abs(date - Date.now())).toBeLessThan(5_000);
    expect(proc.output()).not.toMatch(/fd00:53::2/);
  });

  it('ferry-server refuses bad values before it starts', () => {
    const bad = spawnSync(process.execPath, [SERVER_BIN, '--ipv6-probe', '2001:db8::7:443'], {
      encoding: 'utf8',
    });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--ipv6-probe.*\[2001:db8::1\]:443/s);
    const zone = spawnSync(process.execPath, [SERVER_BIN, '--dns-leak-zone', 'bad zone'], {
      encoding: 'utf8',
    });
    expect(zone.status).not.toBe(0);
    expect(zone.stderr).toMatch(/--dns-leak-zone/);
  });
});
