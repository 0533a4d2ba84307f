// The terminal UI's top: the connection's state at a glance (state, region, node, protocol),
// the live latency with its recent history, and the protections as the engine holds them.
import { Box } from 'ink';
import { Text } from './text.js';
import { engineStateWords, protocolWords } from '../../contracts/words/states.js';
import { transportNames, transportReasonText } from '../../contracts/words/transports.js';
import type { LocalStatus } from '../../contracts/index.js';
import type { Translate } from '../../contracts/i18n/translator.js';
import { latencyWords, type TuiWords } from './language.js';
import { regionName, sparkline, type TuiState } from './state.js';
import { useWords } from './words.js';

const STATE_COLORS: Readonly<Record<LocalStatus['status'], string>> = {
  disconnected: 'gray',
  connecting: 'yellow',
  connected: 'green',
  reconnecting: 'yellow',
  disconnecting: 'yellow',
  error: 'red',
};

/** How many latency readings the sparkline shows. */
const SPARK_WIDTH = 30;

/** "Asia East (Tokyo) · node tokyo-1 · WireGuard over TCP": where the tunnel goes, and how. */
export function whereWords(state: TuiState, s: LocalStatus, t: Translate): string {
  if (s.status === 'disconnected') return '';
  const protocol = s.protocol ? protocolWords(s.protocol, t) : null;
  return [
    regionName(state, s.region ?? s.node?.region),
    s.node ? t('tui.header.node', { id: s.node.id }) : null,
    s.node?.entry
      ? t('tui.header.entering', {
          id: s.node.entry.id,
          region: regionName(state, s.node.entry.region),
        })
      : null,
    protocol && s.transport && s.transport !== 'udp'
      ? t('tui.header.over', { protocol, transport: transportNames(t)[s.transport] })
      : protocol,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** "Kill switch on (holds from the next connect)": a setting, and what it does right now. */
const remarked = (t: Translate, text: string, remark: string | null) =>
  remark ? t('tui.remark', { text, remark }) : text;

/** The protections: each setting as configured, and what it does right now. */
export function protectionWords(state: TuiState, t: Translate): string[] {
  const c = state.config;
  const p = state.status?.protection;
  if (!c) return [];
  const killSwitch =
    p?.kill_switch === 'active'
      ? t('tui.protection.killSwitchActive')
      : p?.kill_switch === 'armed'
        ? t('tui.protection.killSwitchArmed')
        : null;
  const split =
    p?.split === 'by-country'
      ? t('tui.protection.splitByCountry', { country: p.home_country ?? '?' })
      : p?.split === 'unavailable'
        ? t('tui.protection.splitUnavailable')
        : null;
  const dns =
    p && p.dns.length > 0 ? t('tui.protection.dnsInTunnel', { servers: p.dns.join(', ') }) : null;
  return [
    remarked(
      t,
      c.kill_switch ? t('tui.protection.killSwitchOn') : t('tui.protection.killSwitchOff'),
      killSwitch,
    ),
    remarked(
      t,
      c.split === 'auto' ? t('tui.protection.splitAuto') : t('tui.protection.splitOff'),
      split,
    ),
    remarked(t, t('tui.protection.dns', { value: c.dns }), dns),
  ];
}

/** What the engine needs before it can connect, in a line. */
export function setupWords(s: LocalStatus, t: Translate): string | null {
  if (!s.service_configured) return t('tui.header.notSetUp');
  if (!s.signed_in) return t('tui.header.notSignedIn');
  return null;
}

/** The tunnel's transport and why, in the language (the engine's words for a newer reason). */
function transportReason(s: LocalStatus, t: Translate): string | null {
  const r = s.transport_reason;
  if (!r || !s.transport) return r?.message ?? null;
  return transportReasonText(s.transport, r.code, r.blocked, t);
}

function latencyLine(s: LocalStatus, words: TuiWords, up: boolean) {
  return up && s.latency ? latencyWords(s.latency, words) : null;
}

export function Header({ state }: { state: TuiState }) {
  const words = useWords();
  const { t } = words;
  const s = state.status;
  const away = state.link.state === 'down';
  if (!s || away) {
    return (
      <Box flexDirection="column">
        <Text>
          <Text bold>{t('tui.brand')}</Text>
          {'  '}
          <Text color={away ? 'red' : 'gray'} bold>
            ● {away ? t('tui.header.engineAway') : t('tui.header.reaching')}
          </Text>
        </Text>
      </Box>
    );
  }
  const where = whereWords(state, s, t);
  const up = s.status === 'connected' || s.status === 'reconnecting';
  const setup = setupWords(s, t);
  const latency = latencyLine(s, words, up);
  const reason = up ? transportReason(s, t) : null;
  const protections = protectionWords(state, t);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>{t('tui.brand')}</Text>
        {'  '}
        <Text color={STATE_COLORS[s.status]} bold>
          ● {engineStateWords(t)[s.status]}
        </Text>
        {where ? `  ${where}` : ''}
      </Text>
      {s.status === 'error' && s.error ? (
        <Text color="red" wrap="truncate-end">
          {s.protection.kill_switch === 'active'
            ? remarked(t, s.error.message, t('tui.header.errorBlocked'))
            : s.error.message}
        </Text>
      ) : null}
      {s.status === 'disconnected' && s.error ? (
        <Text color="gray" wrap="truncate-end">
          {t('tui.header.lastAttempt', { message: s.error.message })}
        </Text>
      ) : null}
      <Text>
        {t('tui.header.latency')}{' '}
        {latency ? <Text bold>{latency}</Text> : <Text color="gray">-</Text>}
        {up ? `  ${sparkline(s.latency_history, SPARK_WIDTH)}` : ''}
      </Text>
      {reason ? (
        <Text color="gray" wrap="truncate-end">
          {t('tui.header.transport', { reason })}
        </Text>
      ) : null}
      {protections.length > 0 ? <Text>{protections.join(' · ')}</Text> : null}
      {setup ? <Text color="yellow">{setup}</Text> : null}
    </Box>
  );
}
