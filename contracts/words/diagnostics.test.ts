// Each check's finding in words: every finding of every check worded in all five languages and
// filled with its facts, the engine's English words when the finding is not known, fixes that
// never name a command, and the command lines netcli prints built from the actions.
import { describe, expect, it } from 'vitest';
import {
  COMMON_DIAGNOSTIC_FINDINGS,
  DIAGNOSTIC_CHECK_IDS,
  DIAGNOSTIC_FINDINGS,
  DiagnosticCheck,
  diagnosticCheck,
  diagnosticSettingPatch,
  engineDownReport,
  findingVerdict,
  type DiagnosticAction,
  type DiagnosticVerdict,
} from '../diagnostics.js';
import { LANGUAGES } from '../i18n/languages.js';
import { CATALOGS, translator, type Catalog } from '../i18n/translator.js';
import {
  diagnosticActionLabel,
  diagnosticCommand,
  diagnosticFixText,
  diagnosticSummaryText,
} from './diagnostics.js';

/** Every fact any finding's words use. */
const FACTS = {
  state: 'connected',
  node: 'hk-1',
  socket: '/run/ferry/engine.sock',
  seconds: 4,
  host: 'ferry.example:8443',
  detail: 'connect ECONNREFUSED',
  status: 503,
  code: 'unavailable',
  ms: 12,
  version: '0.1.0',
  count: 3,
  why: 'bad-signature',
  method: 'socks5://proxy.example:1080',
  transport: 'tcp',
  region: 'asia-east',
  reason: 'fallback',
  blockages: 'udp-unanswered,tcp-reset',
  obfuscation: 'on',
  resolver: '9.9.9.9',
  address: '203.0.113.5',
  outcome: 'refused',
  bytes: 1392,
  mtu: 1420,
  suggested: 1380,
  missing: 'guard_out',
  home: 'CN',
  dataset: 'ferry-test',
  name: 'www.baidu.com',
};

const FALLBACK = 'the engine’s own words';
const FALLBACK_FIX = 'the engine’s own fix';

/** A check with a finding, as the engine makes it (its own words marked, to see them used). */
function found(
  id: (typeof DIAGNOSTIC_CHECK_IDS)[number],
  finding: string,
  verdict: DiagnosticVerdict,
  params: Record<string, string | number> = FACTS,
  action?: DiagnosticAction,
): DiagnosticCheck {
  return diagnosticCheck(id, verdict, FALLBACK, FALLBACK_FIX, {
    finding: finding as never,
    params,
    ...(action && { action }),
  });
}

/** Every finding of every check: [id, finding, verdict]. */
const ALL = DIAGNOSTIC_CHECK_IDS.flatMap((id) =>
  Object.entries({ ...DIAGNOSTIC_FINDINGS[id], ...COMMON_DIAGNOSTIC_FINDINGS }).map(
    ([finding, verdict]) => [id, finding, verdict] as const,
  ),
);

const needsFix = (v: DiagnosticVerdict) => v === 'warning' || v === 'problem';

describe('a finding in words', () => {
  it('words every finding of every check in all five languages, filled with its facts', () => {
    expect(ALL.length).toBeGreaterThan(100);
    for (const language of LANGUAGES) {
      const t = translator(language);
      for (const [id, finding, verdict] of ALL) {
        const check = found(id, finding, verdict);
        const summary = diagnosticSummaryText(check, t, language);
        expect(summary, `${language} ${id}.${finding}`).not.toBe(FALLBACK);
        expect(summary, `${language} ${id}.${finding}`).not.toMatch(/\{\{|\}\}/);
        const fix = diagnosticFixText(check, t, language);
        if (needsFix(verdict)) {
          expect(fix, `${language} ${id}.${finding} fix`).not.toBe(FALLBACK_FIX);
          expect(fix, `${language} ${id}.${finding} fix`).not.toMatch(/\{\{|\}\}/);
        } else expect(fix, `${language} ${id}.${finding} fix`).toBeNull();
      }
    }
  });

  it('has words for exactly the findings there are, with a fix exactly where one is needed', () => {
    const words = (CATALOGS.en as { diagnose: Catalog }).diagnose;
    const groups = { ...DIAGNOSTIC_FINDINGS, node: {}, common: COMMON_DIAGNOSTIC_FINDINGS };
    for (const [group, entries] of Object.entries(words)) {
      if (group === 'values' || group === 'actions') continue;
      expect(Object.keys(groups), group).toContain(group);
      for (const [finding, entry] of Object.entries(entries as Catalog)) {
        const verdict =
          group === 'node'
            ? findingVerdict('node-udp', finding)
            : findingVerdict(group === 'common' ? 'engine' : group, finding);
        expect(verdict, `${group}.${finding}`).toBeDefined();
        const parts = Object.keys(entry as Catalog).map((k) => k.replace(/_[a-z]+$/, ''));
        expect([...new Set(parts)].sort(), `${group}.${finding}`).toEqual(
          needsFix(verdict!) ? ['fix', 'summary'] : ['summary'],
        );
      }
    }
    // node-udp and node-tcp share the words of why no node was probed.
    expect(findingVerdict('node-tcp', 'signed-out')).toBe('skipped');
    expect(findingVerdict('mtu', 'no-such-finding')).toBeUndefined();
  });

  it('never names a command in a fix, in any language', () => {
    for (const language of LANGUAGES) {
      const t = translator(language);
      for (const [id, finding, verdict] of ALL) {
        if (!needsFix(verdict)) continue;
        const fix = diagnosticFixText(found(id, finding, verdict), t, language)!;
        expect(fix, `${language} ${id}.${finding}`).not.toMatch(/netcli|sudo|--[a-z]/);
      }
    }
  });

  it('reproduces the engine’s English words', () => {
    const mtu = found('mtu', 'black-hole', 'problem', { bytes: 1392, mtu: 1420, suggested: 1380 });
    expect(diagnosticSummaryText(mtu)).toBe(
      "an MTU black hole: packets over 1392 bytes are lost on the way to the node (the tunnel's MTU is 1420)",
    );
    expect(diagnosticFixText(mtu)).toBe('set a smaller packet size (MTU): 1380');
    const clock = found('clock', 'far-behind', 'problem', { seconds: 75 });
    expect(diagnosticSummaryText(clock)).toBe(
      "this host's clock is 75 s behind the control plane's: tunnel handshakes fail (WireGuard and Ferry reject stale timestamps)",
    );
    expect(diagnosticSummaryText(found('engine', 'running', 'ok', { state: 'disconnected' }))).toBe(
      'running (disconnected)',
    );
    const rules = (count: number) =>
      diagnosticSummaryText(found('kill-switch', 'in-force', 'ok', { count }));
    expect([rules(1), rules(12)]).toEqual(['in force: 1 rule', 'in force: 12 rules']);
    expect(
      diagnosticSummaryText(
        found('censorship', 'interferes', 'warning', {
          transport: 'tls',
          reason: 'fallback',
          blockages: 'udp-unanswered,tcp-reset',
        }),
      ),
    ).toBe(
      'this network interferes: UDP looks blocked on this network; TCP to the server was reset: using TLS',
    );
    expect(
      diagnosticSummaryText(
        found('node-tcp', 'unreachable', 'problem', {
          node: 'hk-1',
          region: 'asia-east',
          outcome: 'timeout',
        }),
      ),
    ).toBe("a TCP connect to hk-1 (asia-east)'s Ferry port got no answer within 2 s");
  });

  it('speaks each language in its own forms: plurals, digits, country names', () => {
    const ru = translator('ru');
    const rules = (count: number) =>
      diagnosticSummaryText(found('kill-switch', 'in-force', 'ok', { count }), ru);
    expect([1, 3, 5, 21].map(rules)).toEqual([
      'действует: 1 правило',
      'действует: 3 правила',
      'действует: 5 правил',
      'действует: 21 правило',
    ]);
    const fa = translator('fa');
    expect(diagnosticFixText(found('mtu', 'black-hole', 'problem', { suggested: 1380 }), fa)).toBe(
      'اندازهٔ بسته (MTU) را به ۱۳۸۰ کاهش دهید.',
    );
    const home = found('split', 'by-country-brief', 'ok', { home: 'CN' });
    expect(diagnosticSummaryText(home, translator('zh-CN'), 'zh-CN')).toBe(
      '只有跨境流量经过隧道（所在国家：中国）。',
    );
    // Without the language, the country stays as its code.
    expect(diagnosticSummaryText(home)).toBe(
      'only cross-border traffic goes through the tunnel (home CN)',
    );
    expect(
      diagnosticSummaryText(found('node-udp', 'signed-out', 'skipped'), translator('zh-TW')),
    ).toBe('本裝置尚未登入：沒有可選擇的伺服器清單。');
    expect(
      diagnosticSummaryText(
        found('censorship', 'fixed', 'skipped', { obfuscation: 'on', transport: 'tcp' }),
        translator('ru'),
      ),
    ).toBe(
      'маскировка: включена; туннель работает по TCP, что бы ни делала сеть (автопилот выключен)',
    );
  });

  it('falls back to the engine’s words for a finding it does not know, or facts missing', () => {
    const t = translator('ru');
    for (const check of [
      found('mtu', 'a-newer-finding', 'problem'),
      found('mtu', 'black-hole', 'problem', {}),
      diagnosticCheck('mtu', 'problem', FALLBACK, FALLBACK_FIX),
    ]) {
      expect(diagnosticSummaryText(check, t)).toBe(FALLBACK);
      expect(diagnosticFixText(check, t)).toBe(FALLBACK_FIX);
    }
    expect(diagnosticFixText(found('mtu', 'fits', 'ok'), t)).toBeNull();
  });
});

describe('a fix as an action and as a command', () => {
  const command = (
    id: (typeof DIAGNOSTIC_CHECK_IDS)[number],
    finding: string,
    action?: DiagnosticAction,
    params: Record<string, string | number> = {},
  ) => diagnosticCommand(found(id, finding, 'warning', params, action));

  it('builds the command line from the action', () => {
    expect(command('mtu', 'black-hole', { kind: 'setting', key: 'mtu', value: '1380' })).toBe(
      'netcli config set mtu 1380',
    );
    expect(
      command('kill-switch', 'off', { kind: 'setting', key: 'kill_switch', value: 'on' }),
    ).toBe('netcli config set kill_switch on');
    expect(command('split', 'unknown-home', { kind: 'choose-setting', key: 'home_country' })).toBe(
      'netcli config set home_country <code>',
    );
    expect(command('kill-switch', 'not-in-force', { kind: 'reconnect' })).toBe('netcli connect');
    expect(command('mtu', 'timed-out', { kind: 'rerun' })).toBe('netcli diagnose');
    expect(command('node-udp', 'unreachable', { kind: 'region' })).toBe(
      'netcli connect --region <region>',
    );
    expect(command('control-plane', 'not-configured', { kind: 'setup' })).toBe(
      'netcli init --endpoint <url>',
    );
  });

  it('names the host’s command where no action of the app makes the fix', () => {
    expect(command('clock', 'far-ahead')).toBe('timedatectl set-ntp true');
    expect(command('mtu', 'no-ping')).toBe('sudo apt install iputils-ping');
    expect(command('control-plane', 'timeout')).toBe('netcli config get service');
    expect(command('api-access', 'direct-unverified', { kind: 'setup' })).toBe(
      'netcli init --endpoint <url> --service-key <base64>',
    );
    expect(command('engine', 'not-running', undefined, { socket: '/run/ferry/engine.sock' })).toBe(
      'sudo netcli daemon',
    );
    expect(command('engine', 'not-running', undefined, { socket: '/tmp/x/ferry.sock' })).toBe(
      'sudo netcli daemon --socket /tmp/x/ferry.sock',
    );
    // Nothing to do, no finding (an older engine: its fix says the command), or no command.
    expect(diagnosticCommand(found('mtu', 'fits', 'ok'))).toBeNull();
    expect(
      diagnosticCommand(diagnosticCheck('mtu', 'problem', 'x', 'netcli config set mtu 1380')),
    ).toBeNull();
    expect(command('domestic-dns', 'abroad')).toBeNull();
  });

  it('makes a setting action the configuration change the app sends', () => {
    expect(diagnosticSettingPatch({ kind: 'setting', key: 'kill_switch', value: 'on' })).toEqual({
      kill_switch: true,
    });
    expect(diagnosticSettingPatch({ kind: 'setting', key: 'mtu', value: '1380' })).toEqual({
      mtu: 1380,
    });
    expect(diagnosticSettingPatch({ kind: 'setting', key: 'dns', value: 'auto' })).toEqual({
      dns: 'auto',
    });
    expect(diagnosticSettingPatch({ kind: 'setting', key: 'obfuscation', value: 'tls' })).toEqual({
      obfuscation: 'tls',
    });
    expect(diagnosticSettingPatch({ kind: 'setting', key: 'mtu', value: '99' })).toBeNull();
    expect(diagnosticSettingPatch({ kind: 'reconnect' })).toBeNull();
  });

  it('labels the button that makes it, in the language', () => {
    expect(diagnosticActionLabel({ kind: 'rerun' })).toBe('Run again');
    expect(diagnosticActionLabel({ kind: 'reconnect' }, translator('ru'))).toBe('Переподключиться');
  });

  it('carries the action only where there is something to do, and reads one it does not know as none', () => {
    const ok = diagnosticCheck('mtu', 'ok', 'fits', null, {
      finding: 'fits',
      action: { kind: 'reconnect' },
    });
    expect(ok.action).toBeUndefined();
    const newer = DiagnosticCheck.parse({
      ...found('mtu', 'black-hole', 'problem', { suggested: 1380 }),
      action: { kind: 'teleport' },
    });
    expect(newer.action).toBeUndefined();
    expect(newer.finding).toBe('black-hole');
    const kept = DiagnosticCheck.parse(
      found('mtu', 'black-hole', 'problem', {}, { kind: 'setting', key: 'mtu', value: '1380' }),
    );
    expect(kept.action).toEqual({ kind: 'setting', key: 'mtu', value: '1380' });
    // An older engine's check: no finding, no facts, no action.
    const older = DiagnosticCheck.parse({
      id: 'mtu',
      title: 'MTU',
      verdict: 'ok',
      summary: 'x',
      fix: null,
    });
    expect(older).toEqual({ id: 'mtu', title: 'MTU', verdict: 'ok', summary: 'x', fix: null });
  });

  it('words the report of an engine that does not answer', () => {
    const report = engineDownReport('no engine answers on /tmp/e.sock', 'start it', new Date(0), {
      finding: 'not-running',
      params: { socket: '/tmp/e.sock' },
    });
    const [engine, ...others] = report.checks;
    expect(diagnosticSummaryText(engine!, translator('zh-CN'))).toBe(
      '/tmp/e.sock 上没有引擎响应。',
    );
    expect(diagnosticCommand(engine!)).toBe('sudo netcli daemon --socket /tmp/e.sock');
    expect(others.map((c) => c.finding)).toEqual(others.map(() => 'engine-down'));
    expect(diagnosticSummaryText(others[0]!, translator('ru'))).toBe('движок не отвечает');
  });
});
