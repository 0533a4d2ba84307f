// The shared words: a title for every notice, each face's words for a settings change, and the
// lookups by a code that came over a boundary.
import { describe, expect, it } from 'vitest';
import { NOTICE_CODES } from '../notice-codes.js';
import { ENGINE_STATES } from '../local-api.js';
import { CONFIG_EFFECT_WORDS } from './effects.js';
import { APP_ERROR_WORDS, NETCLI_ERROR_HINTS, NO_ANSWER_CODES, wordsFor } from './errors.js';
import { translator } from '../i18n/translator.js';
import { diagnosticTitle } from './diagnostics.js';
import { noticeText, noticeTitle } from './notices.js';
import {
  ENGINE_STATE_SENTENCE_WORDS,
  ENGINE_STATE_WORDS,
  PROTOCOL_WORDS,
  protocolWords,
} from './states.js';

describe('words', () => {
  it('name every state, at a glance and in a sentence', () => {
    for (const s of ENGINE_STATES) {
      expect(ENGINE_STATE_WORDS[s]).toMatch(/^[A-Z]/);
      expect(ENGINE_STATE_WORDS[s].startsWith(ENGINE_STATE_SENTENCE_WORDS[s])).toBe(true);
    }
    expect(ENGINE_STATE_WORDS.connecting).toBe('Connecting…');
    expect(ENGINE_STATE_SENTENCE_WORDS.connecting).toBe('Connecting');
  });

  it('name the protocols, and a newer one as it came', () => {
    expect(protocolWords('wireguard')).toBe('WireGuard');
    expect(protocolWords('ferry')).toBe(PROTOCOL_WORDS.ferry);
    expect(protocolWords('quic')).toBe('quic');
    expect(protocolWords('constructor')).toBe('constructor');
  });

  it('give a notice its own title, or a general one', () => {
    expect(noticeTitle('failover')).toBe('Moved to another server');
    expect(noticeTitle('udp-blocked')).toBe('UDP is blocked');
    expect(noticeTitle('data-cap-80')).toBe('Data cap');
    expect(noticeTitle('region-fallback')).toBe('Notice');
    expect(noticeTitle('toString')).toBe('Notice');
    for (const code of NOTICE_CODES) expect(noticeTitle(code)).not.toBe('');
  });

  it('say what a settings change did, in each face’s words', () => {
    for (const face of Object.values(CONFIG_EFFECT_WORDS))
      for (const effect of ['reconnected', 'applied', 'saved', 'unchanged'] as const)
        expect(face[effect]).not.toBe('');
    expect(CONFIG_EFFECT_WORDS.tui.unchanged).toBe('unchanged');
  });

  it('look a refusal’s words up by its code, none for a code without any', () => {
    expect(wordsFor(APP_ERROR_WORDS, 'not-signed-in')).toBe('Sign in to your Ferry account first.');
    expect(wordsFor(NETCLI_ERROR_HINTS, 'rule-not-found')).toEqual([
      'netcli region list shows the rules',
    ]);
    expect(wordsFor(NETCLI_ERROR_HINTS, 'from-a-newer-engine')).toBeUndefined();
    expect(wordsFor(NETCLI_ERROR_HINTS, 'constructor')).toBeUndefined();
    expect(NO_ANSWER_CODES.has('unreachable')).toBe(true);
    expect(NO_ANSWER_CODES.has('not-found')).toBe(false);
  });

  it('word a notice in the face’s language from its facts, or as it came', () => {
    const zh = translator('zh-CN');
    const fa = translator('fa');
    const failover = {
      code: 'failover',
      message: 'node node_a stopped answering: moved to node node_b (asia-east)',
      params: { region: 'asia-east' },
    };
    expect(noticeText(failover)).toBe(
      'The server stopped answering: the tunnel moved to another server in asia-east.',
    );
    expect(noticeText(failover, zh)).toBe(
      '服务器已无响应：隧道已切换到 asia-east 的另一台服务器。',
    );
    // An older engine's notice (no facts) and a newer code keep the words they came with.
    expect(noticeText({ code: 'failover', message: 'moved' }, zh)).toBe('moved');
    expect(noticeText({ code: 'from-a-newer-engine', message: 'new words' }, fa)).toBe('new words');
    // No face is sent to a command line by the notice itself.
    for (const language of ['en', 'zh-CN', 'zh-TW', 'ru', 'fa'] as const)
      expect(
        noticeText({ code: 'split-unavailable', message: 'x netcli' }, translator(language)),
      ).not.toMatch(/netcli/);
  });

  it('title a diagnostics check by its id, a newer one as the engine named it', () => {
    expect(diagnosticTitle('dns-leak', 'DNS leak')).toBe('DNS leak');
    expect(diagnosticTitle('dns-leak', 'DNS leak', translator('zh-TW'))).toBe('DNS 外洩');
    expect(diagnosticTitle('quantum', 'Quantum')).toBe('Quantum');
  });
});
