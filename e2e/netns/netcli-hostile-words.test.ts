// A control plane that writes terminal commands into its words, against the real `netcli daemon`
// and the built netcli in a namespace: a stand-in on the laptop's loopback signs the laptop in as
// a device named with escape sequences, lists regions named with them, and refuses a sign-in
// with a problem whose detail carries them. What netcli writes is read back byte for byte: the
// words are there, nothing a terminal obeys is (finding 9 of issue 18). The options every
// command takes work before the command too, and netcli --version answers (finding 14).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROLS, hostile } from '../../cli/testing/terminal-controls.js';
import { NETCLI, NetcliHost } from './netcli-host.js';
import { startStandInControlPlane } from './stand-in-control-plane.js';
import type { ManagedProcess } from './test-network.js';
import { Testbed } from './testbed.js';

const PORT = 8080;

/** The words the stand-in says, each with every attack in it (cli/testing/terminal-controls.ts). */
const WORDS = {
  device: hostile('laptop'),
  region: hostile('Asia East') + '\nConnected to safe-region',
  refusal: hostile('this account is closed') + '\nConnected to safe-region',
};

/** Each attack's visible payload; none may reach the terminal. */
const PAYLOADS = ['pwned', 'Y3VybCBldmls', ']0;', ']52;', '[2J'];

/**
 * The stand-in: /health as the control plane answers it; POST /accounts makes an account;
 * POST /sessions signs it in as a device named WORDS.device, or refuses account
 * 1111222233334444 with a problem whose detail is WORDS.refusal; GET /regions lists one region
 * named WORDS.region; GET /nodes none; DELETE answers 204.
 */
const STAND_IN = `
const http = require('node:http');
const WORDS = ${JSON.stringify(WORDS)};
const send = (res, status, body, type = 'application/json') => {
  res.writeHead(status, { 'content-type': type });
  res.end(body === undefined ? undefined : JSON.stringify(body));
};
http.createServer((req, res) => {
  let text = '';
  req.on('data', (c) => (text += c));
  req.on('end', () => {
    const path = new URL(req.url, 'http://stand-in').pathname.replace(/^\\/api\\/v1/, '');
    const body = text ? JSON.parse(text) : {};
    if (path === '/health') return send(res, 200, { status: 'ok', version: '0.1.0', api: 'v1' });
    if (req.method === 'DELETE') return send(res, 204);
    if (path === '/accounts') return send(res, 201, { account_number: '9002206271022107', plan: 'basic' });
    if (path === '/sessions' && body.account_number === '1111222233334444')
      return send(res, 403, {
        type: 'https://ferry.example/problems/invalid-credentials',
        title: 'closed',
        status: 403,
        code: 'invalid-credentials',
        detail: WORDS.refusal,
      }, 'application/problem+json');
    if (path === '/sessions')
      return send(res, 201, {
        token: 'ferry_d_' + 'A'.repeat(40),
        device: {
          id: 'dev_1', name: WORDS.device, kind: body.device.kind,
          wireguard_public_key: body.device.wireguard_public_key,
          ferry_public_key: body.device.ferry_public_key,
          tunnel_ipv4: '10.64.0.2', tunnel_ipv6: 'fd66:6572:7279::2', current: true,
        },
      });
    if (path === '/regions')
      return send(res, 200, { regions: [{
        id: 'asia-east', name: WORDS.region, area: 'asia', country: 'HK', load: 0.2,
        nodes_healthy: 0, platforms_verified: [], allowed: true,
      }] });
    if (path === '/nodes') return send(res, 200, { nodes: [] });
    send(res, 404, { type: 'about:blank', title: 'not here', status: 404, code: 'not-found', detail: path }, 'application/problem+json');
  });
}).listen(${PORT}, '127.0.0.1', () => console.log('listening'));
`;

function expectHarmless(text: string): void {
  expect(text).not.toMatch(CONTROLS);
  for (const p of PAYLOADS) expect(text).not.toContain(p);
}

describe('netcli with a control plane that writes terminal commands into its words', () => {
  let bed: Testbed;
  let laptop: NetcliHost;
  let standIn: ManagedProcess;

  /** The built netcli in the laptop's namespace with exactly these arguments. */
  const netcliExactly = (...args: string[]) => {
    const r = spawnSync(
      'ip',
      ['netns', 'exec', bed.net.host('laptop').ns, process.execPath, NETCLI, ...args],
      { encoding: 'utf8', timeout: 60_000 },
    );
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  beforeAll(async () => {
    bed = await Testbed.start();
    try {
      laptop = await NetcliHost.start(bed, 'laptop');
      standIn = await startStandInControlPlane(bed, laptop, STAND_IN, PORT);
    } catch (e) {
      await bed.stop();
      throw e;
    }
  }, 120_000);

  afterAll(async () => {
    await standIn?.stop();
    await laptop?.stop();
    await bed?.stop();
  }, 60_000);

  it('a refusal’s detail: shown on one line, without its controls', () => {
    const r = laptop.run('login', '1111222233334444');
    expect(r.code).toBe(1);
    expectHarmless(r.stderr);
    expect(r.stderr).toMatch(/^netcli: th ?is account is closed Connected to safe-region\n/);
  });

  it('a device and a region named by it: shown without their controls, the same in --json', () => {
    const created = laptop.run('account', 'create', '--device-name', 'laptop');
    expect(created.code, created.stderr).toBe(0);
    expectHarmless(created.stdout);
    expect(created.stdout).toMatch(/signed in as la ?ptop\./);

    const regions = laptop.run('region', 'list');
    expect(regions.code, regions.stderr).toBe(0);
    expectHarmless(regions.stdout);
    expect(regions.stdout).toMatch(/\nasia-east +As ?ia East Connected to safe-region +asia /);
    expect(regions.stdout.split('\n').filter((l) => l.startsWith('Connected'))).toEqual([]);

    // --json before the command, the built netcli: the very words, escaped, as valid JSON.
    const json = netcliExactly('--json', '--socket', laptop.socket, 'region', 'list');
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(CONTROLS);
    expect(JSON.parse(json.stdout).regions[0].name).toBe(WORDS.region);
  });

  it('takes the options every command takes before the command; --version answers', () => {
    const before = netcliExactly('--socket', laptop.socket, '--json', 'status');
    const after = netcliExactly('status', '--json', '--socket', laptop.socket);
    expect(before.code, before.stderr).toBe(0);
    expect(JSON.parse(before.stdout)).toEqual(JSON.parse(after.stdout));
    expect(JSON.parse(before.stdout)).toMatchObject({ signed_in: true, status: 'disconnected' });

    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(netcliExactly('--version')).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    const typo = netcliExactly('--json', 'stauts');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^netcli: unknown command 'stauts'\n\(Did you mean status\?\)/);
  });
});
