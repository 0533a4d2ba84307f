// netcli's terminal UI in a real terminal (tmux) on a client namespace, against the real engine
// (netcli daemon) connected to real relays in two regions: what a person sees and what each key
// does. It shows Disconnected; `c` connects (the echo service sees the relay) with a live
// latency; the arrows and Enter switch to the other region's relay; `k` flips the engine's kill
// switch; `g` gives the web graphical mode's one-time link; `netcli ui graphical` makes
// `netcli` alone open the graphical mode instead, and `netcli ui terminal` the terminal UI again;
// `u` shows the engine's split rules, where `a` adds a domain rule with its way (the engine then
// lists it to `netcli split list`) and `x` removes it, the engine's refusal said in words.
// In Chinese (LANG=zh_CN.UTF-8): the state, the settings, the regions and the keys in Chinese,
// `d` and `c` said in it; `netcli config set language ru` switches the open screen to Russian,
// `auto` back to the system's.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETCLI, NetcliHost } from './netcli-host.js';
import { Testbed, type RelayHandle } from './testbed.js';
import { TmuxServer, type TmuxPane } from './tmux.js';

// The web graphical mode's own address: a random 127.x.y.z, never 127.0.0.1.
const LINK = /http:\/\/127\.(?!0\.0\.1:)\d+\.\d+\.\d+:\d+\/session\/[A-Za-z0-9_-]{43}/;
/** The header's first line: the state, then where the tunnel goes. */
const CONNECTED = /^Ferry +\S+ Connected {2}(.+)$/m;
/** The header's latency line: the reading and its sparkline. */
const LATENCY = /^Latency (\d+(?:\.\d+)?ms) {2}(\S+)$/m;
const HELP_LINE = 'c connect  d disconnect';

describe('netcli tui in a terminal, against the real engine', () => {
  let bed: Testbed;
  let laptop: NetcliHost;
  let relays: { tokyo: RelayHandle; zurich: RelayHandle };
  let tmux: TmuxServer;

  /** `netcli <args>` as a person types it in the laptop's namespace (the socket from the environment). */
  const netcliArgv = (...args: string[]) => [
    'ip',
    'netns',
    'exec',
    bed.net.host(laptop.host).ns,
    'env',
    `FERRY_SOCKET=${laptop.socket}`,
    process.execPath,
    NETCLI,
    ...args,
  ];

  /** The same, in a system of `locale` (LANG; the other locale variables unset). */
  const netcliArgvIn = (locale: string, ...args: string[]) => {
    const argv = netcliArgv(...args);
    const env = argv.indexOf('env');
    argv.splice(
      env + 1,
      0,
      '-u',
      'LC_ALL',
      '-u',
      'LC_MESSAGES',
      '-u',
      'LANGUAGE',
      `LANG=${locale}`,
    );
    return argv;
  };

  /** The relay the laptop's tunnel goes to now, as the engine says. */
  const currentRelay = (): RelayHandle => {
    const endpoint = laptop.json('status').node?.endpoint as string | undefined;
    const relay = Object.values(relays).find((r) => endpoint?.startsWith(`${r.address}:`));
    if (!relay) throw new Error(`not connected to a relay: ${endpoint}`);
    return relay;
  };

  /** The row of the region list that names `region`. */
  const isRow = (line: string, region: string) =>
    line.startsWith(`  ${region} `) || line.startsWith(`› ${region} `);
  const row = (screen: string, region: string) => screen.split('\n').find((l) => isRow(l, region));
  const selectedAt = (screen: string) => screen.split('\n').findIndex((l) => l.startsWith('› '));

  /** Moves the selection with the arrow keys to the row of `region`, one key at a time. */
  async function select(pane: TmuxPane, region: string): Promise<void> {
    for (let moves = 0; moves < 10; moves++) {
      const screen = pane.screen();
      const from = selectedAt(screen);
      const to = screen.split('\n').findIndex((l) => isRow(l, region));
      if (from === to) return;
      pane.send(to > from ? 'Down' : 'Up');
      await pane.waitUntil('the selection to move', (s) =>
        selectedAt(s) !== from ? true : undefined,
      );
    }
    throw new Error(`could not select ${region}:\n${pane.screen()}`);
  }

  beforeAll(async () => {
    bed = await Testbed.start({ controlPlaneOn: 'servers' });
    // The basic plan's two regions, a relay in each.
    relays = {
      tokyo: await bed.addRelay('tokyo', 'asia-east', { ferry: true }),
      zurich: await bed.addRelay('zurich', 'global', { ferry: true }),
    };
    laptop = await NetcliHost.start(bed, 'laptop');
    laptop.human('init', '--protocol', 'wireguard', ...bed.endpointArgs());
    laptop.human('account', 'create', '--device-name', 'laptop');
    tmux = new TmuxServer(path.join(bed.net.dir, 'tmux.sock'));
  }, 180_000);

  afterAll(async () => {
    tmux?.stop();
    laptop?.run('disconnect');
    await laptop?.stop();
    await bed?.stop();
  }, 60_000);

  it('shows the state, connects with c, follows the latency, switches region with Enter, flips the kill switch with k, and g gives the graphical mode', async () => {
    const tui = tmux.open(netcliArgv('tui'));
    const screen = await tui.waitUntil('the regions', (s) =>
      s.includes('Asia East (Tokyo)') && s.includes(HELP_LINE) ? s : undefined,
    );
    expect(screen).toMatch(/^Ferry +\S+ Disconnected$/m);
    expect(screen).toContain(
      'c connect  d disconnect  ↑↓ region  ⏎ switch  k kill switch  s split  u rules  n dns  r latency  g graphical  q quit',
    );
    expect(row(screen, 'Asia Southeast (Singapore)')).toContain('not in your plan');

    // c: connected as configured (auto), the tunnel's relay seen by the echo service.
    tui.send('c');
    const [, where] = await tui.waitFor('Connected', CONNECTED, 60_000);
    const first = currentRelay();
    expect(where).toContain(`node ${first.nodeId}`);
    expect(where).toContain('WireGuard');
    expect(laptop.exitIp()).toBe(first.address);
    await tui.waitFor('the exit address', new RegExp(`Exit IP \\S+ -> ${first.address}$`, 'm'));
    const [, latency, spark] = await tui.waitFor('a latency reading', LATENCY, 15_000);
    expect(latency).toMatch(/^\d+(\.\d+)?ms$/);

    // The readout is live: the next readings come from the engine's events.
    await tui.waitUntil(
      'a new latency reading',
      (s) => {
        const m = LATENCY.exec(s);
        return m && (m[1] !== latency || m[2]!.length > spark!.length) ? m : undefined;
      },
      20_000,
    );

    // The other region, chosen with the arrows; Enter switches the live tunnel there.
    const other = first === relays.tokyo ? relays.zurich : relays.tokyo;
    const otherName = other === relays.tokyo ? 'Asia East (Tokyo)' : 'Global';
    expect(row(tui.screen(), otherName === 'Global' ? 'Asia East (Tokyo)' : 'Global')).toMatch(
      /^› .*● connected$/,
    );
    await select(tui, otherName);
    tui.send('Enter');
    await tui.waitUntil(
      `Connected to ${otherName}`,
      (s) => {
        const m = CONNECTED.exec(s);
        return m?.[1]?.startsWith(`${otherName} · node ${other.nodeId}`) ? m : undefined;
      },
      60_000,
    );
    expect(currentRelay()).toBe(other);
    expect(laptop.json('status').status).toBe('connected');
    expect(laptop.exitIp()).toBe(other.address);
    expect(row(tui.screen(), otherName)).toContain('● connected');

    // k: the engine's kill switch, off and on again.
    expect(laptop.json('config', 'get', 'kill_switch')).toEqual({ kill_switch: true });
    tui.send('k');
    await tui.waitFor('the kill switch off', /^Kill switch off · /m);
    expect(laptop.json('config', 'get', 'kill_switch')).toEqual({ kill_switch: false });
    expect(laptop.json('status').protection.kill_switch).toBe('off');
    tui.send('k');
    await tui.waitFor('the kill switch on', /^Kill switch on \(blocking outside the tunnel\)/m);
    expect(laptop.json('config', 'get', 'kill_switch')).toEqual({ kill_switch: true });

    // n: a DNS resolver typed in; the engine's refusal shown in its words, then one it takes.
    tui.send('n');
    await tui.waitFor('the DNS input', /^DNS resolver \(now auto\):$/m);
    tui.send('-l', '224.0.0.1');
    tui.send('Enter');
    await tui.waitFor('the refusal', /^Error: dns must be [\s\S]*?multicast/m);
    expect(laptop.json('config', 'get', 'dns')).toEqual({ dns: 'auto' });
    tui.send('n');
    tui.send('-l', '9.9.9.9');
    tui.send('Enter');
    await tui.waitFor('the new resolver', /^DNS 9\.9\.9\.9: /m);
    expect(laptop.json('config', 'get', 'dns')).toEqual({ dns: '9.9.9.9' });
    tui.send('n');
    tui.send('-l', 'auto');
    tui.send('Enter');
    await tui.waitFor('the node’s resolver again', /^DNS auto: /m);
    expect(laptop.json('config', 'get', 'dns')).toEqual({ dns: 'auto' });

    // g: no display in the namespace, so the web graphical mode's link to open.
    tui.send('g');
    const [link] = await tui.waitFor('the graphical mode’s link', LINK);
    const signIn = bed.net.exec(laptop.host, [
      'curl',
      '-s',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      link,
    ]);
    expect(signIn).toBe('303');

    // q: the screen ends, the connection stays as the engine holds it.
    tui.send('q');
    expect(await tui.exited()).toBe(0);
    expect(laptop.json('status').status).toBe('connected');
  }, 240_000);

  it('netcli alone opens the face netcli ui chose: the graphical mode, then the terminal UI again', async () => {
    expect(laptop.json('ui', 'graphical')).toEqual({ ui: 'graphical' });
    const graphical = tmux.open(netcliArgv());
    expect(await graphical.exited()).toBe(0);
    const shown = graphical.screen();
    expect(shown).toMatch(/^Open Ferry in a browser on this machine/m);
    expect(shown).toMatch(LINK);
    expect(shown).not.toContain(HELP_LINE);

    expect(laptop.json('ui', 'terminal')).toEqual({ ui: 'terminal' });
    expect(laptop.human('ui')).toMatch(/^netcli with no arguments opens the terminal UI/);
    const terminal = tmux.open(netcliArgv());
    await terminal.waitFor('the terminal UI', CONNECTED);
    await terminal.waitUntil('the help line', (s) => (s.includes(HELP_LINE) ? s : undefined));
    terminal.send('q');
    expect(await terminal.exited()).toBe(0);
  }, 60_000);

  it('u shows the split rules: a adds a domain rule with its way, the engine lists it; x removes it; the engine’s refusal in words', async () => {
    const RULES_HELP = /^a add {2}↑↓ rule {2}x remove {2}esc close$/m;
    const NO_RULES = /^ {2}No split rules: only the split by country decides \(a adds one\)$/m;
    const PROMPT = /^Split rule for \(a domain, or a program’s path from \/\):/m;
    expect(laptop.json('split', 'list')).toEqual({ rules: [] });
    const tui = tmux.open(netcliArgv('tui'));
    await tui.waitUntil('the help line', (s) => (s.includes(HELP_LINE) ? s : undefined));
    tui.send('u');
    await tui.waitFor('the split rules', /^ {2}Split rules +WAY$/m);
    await tui.waitFor('no rules yet', NO_RULES);
    await tui.waitFor('the keys of the rules', RULES_HELP);

    // a: a domain that is none, refused before it is sent; Esc leaves it.
    tui.send('a');
    await tui.waitFor('the rule’s prompt', PROMPT);
    tui.send('-l', 'not a domain');
    tui.send('Enter');
    await tui.waitFor(
      'the problem',
      /^not a domain is not a domain name: labels of letters, digits and dashes, e\.g\. example\.com$/m,
    );
    tui.send('Escape');
    await tui.waitFor('the keys of the rules again', RULES_HELP);
    expect(laptop.json('split', 'list')).toEqual({ rules: [] });

    // a: a domain as a person types it, then its way (t: the tunnel only).
    tui.send('a');
    await tui.waitFor('the rule’s prompt', PROMPT);
    tui.send('-l', '*.Example.COM');
    tui.send('Enter');
    await tui.waitFor(
      'the way’s prompt',
      /^example\.com and its subdomains: d direct \(around the tunnel\) or t tunnel \(through it only\)$/m,
    );
    tui.send('t');
    await tui.waitFor(
      'the engine’s answer',
      /^Split rule added: example\.com and its subdomains go through the tunnel only$/m,
    );
    await tui.waitFor(
      'the rule listed',
      /^› domain {2}example\.com +tunnel {2}through the tunnel only$/m,
    );
    expect(laptop.json('split', 'list')).toEqual({
      rules: [{ domain: 'example.com', via: 'tunnel' }],
    });

    // x: removed in the engine.
    tui.send('x');
    await tui.waitFor('the removal', /^Split rule for example\.com removed$/m);
    await tui.waitFor('no rules again', NO_RULES);
    expect(laptop.json('split', 'list')).toEqual({ rules: [] });

    // A rule removed elsewhere meanwhile (netcli split remove): x gets the engine's refusal.
    tui.send('a');
    await tui.waitFor('the rule’s prompt', PROMPT);
    tui.send('-l', 'example.org');
    tui.send('Enter');
    tui.send('d');
    await tui.waitFor(
      'the direct rule listed',
      /^› domain {2}example\.org +direct {2}around the tunnel$/m,
    );
    expect(laptop.json('split', 'list')).toEqual({
      rules: [{ domain: 'example.org', via: 'direct' }],
    });
    expect(laptop.json('split', 'remove', '--domain', 'example.org')).toEqual({
      removed: 'example.org',
    });
    tui.send('x');
    await tui.waitFor(
      'the engine’s refusal',
      /^Error: no split rule for domain example\.org\nhint: netcli split list shows the split rules$/m,
    );
    await tui.waitFor('the rules read again', NO_RULES);

    // Esc: the regions and the keys of the screen again.
    tui.send('Escape');
    await tui.waitUntil('the regions again', (s) =>
      s.includes('Asia East (Tokyo)') && s.includes(HELP_LINE) ? s : undefined,
    );
    tui.send('q');
    expect(await tui.exited()).toBe(0);
  }, 90_000);
  it('speaks the system’s language: in Chinese (LANG=zh_CN.UTF-8) the state, settings, regions and keys; the language setting switches it live', async () => {
    const HELP_ZH =
      'c 连接  d 断开  ↑↓ 地区  ⏎ 切换  k 网络锁  s 分流  u 规则  n dns  r 测延迟  g 图形界面  q 退出';
    const CONNECTED_ZH = /^Ferry +● 已连接 {2}(.+)$/m;
    expect(laptop.json('config', 'get', 'language')).toEqual({ language: 'auto' });
    const tui = tmux.open(netcliArgvIn('zh_CN.UTF-8', 'tui'));
    // The regions, the settings (read once the engine's status came) and the keys.
    const screen = await tui.waitUntil('the Chinese screen', (s) =>
      s.includes('Asia East (Tokyo)') && s.includes('网络锁：') && s.includes(HELP_ZH)
        ? s
        : undefined,
    );
    // Left connected by the first case: the state, where, and the settings in Chinese.
    const [, where] = CONNECTED_ZH.exec(screen) ?? [];
    expect(where).toMatch(/ · 节点 \S+ · WireGuard$/);
    expect(screen).toMatch(/^延迟 \d+(\.\d+)? 毫秒 {2}\S+$/m);
    expect(screen).toMatch(
      /^网络锁：开（正在拦截隧道外的流量） · 分流：自动(?:（[^）]+）)? · DNS auto/m,
    );
    expect(screen).toMatch(/^ {2}地区 +ID、区域 +延迟 +负载$/m);
    expect(row(screen, 'Asia Southeast (Singapore)')).toContain('不在你的套餐内');
    expect(screen).toMatch(/● 已连接$/m);

    // d: disconnected, said in Chinese; c: connected again.
    tui.send('d');
    await tui.waitFor('Disconnected in Chinese', /^Ferry +● 未连接$/m, 30_000);
    await tui.waitFor('the headline of the disconnect', /^未连接$/m);
    expect(laptop.json('status').status).toBe('disconnected');
    tui.send('c');
    await tui.waitFor('Connected in Chinese', CONNECTED_ZH, 60_000);
    await tui.waitFor('the exit address in Chinese', /^ {2}出口 IP \S+ -> \S+$/m);

    // The language setting, changed by netcli, switches the open screen: Russian, then auto.
    expect(laptop.json('config', 'set', 'language', 'ru')).toMatchObject({
      config: { language: 'ru' },
    });
    await tui.waitFor('the Russian screen', /^Ferry +● Подключено {2}/m);
    await tui.waitUntil('the Russian keys', (s) =>
      s.includes('c подключить  d отключить  ↑↓ регион') ? s : undefined,
    );
    expect(laptop.json('config', 'set', 'language', 'auto')).toMatchObject({
      config: { language: 'auto' },
    });
    await tui.waitFor('Chinese again', CONNECTED_ZH);
    const shown = await tui.waitUntil('the Chinese keys again', (s) =>
      s.includes(HELP_ZH) ? s : undefined,
    );
    // What a person saw (the test's log).
    process.stdout.write(`netcli tui in Chinese:\n${shown}\n`);
    tui.send('q');
    expect(await tui.exited()).toBe(0);
  }, 150_000);
});
