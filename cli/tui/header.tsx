// The terminal UI's top: the connection's state at a glance (state, region, node, protocol),
// the live latency with its recent history, and the protections as the engine holds them.
import { Box } from 'ink';
import { Text } from './text.js';
import { ENGINE_STATE_WORDS } from '../../contracts/words/states.js';
import { TRANSPORT_NAMES, type LocalStatus } from '../../contracts/index.js';
import { protocolName } from '../format/connection.js';
import { regionName, sparkline, type TuiState } from './state.js';

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
export function whereWords(state: TuiState, s: LocalStatus): string {
  if (s.status === 'disconnected') return '';
  const transport =
    s.transport && s.transport !== 'udp' ? ` over ${TRANSPORT_NAMES[s.transport]}` : '';
  return [
    regionName(state, s.region ?? s.node?.region),
    s.node ? `node ${s.node.id}` : null,
    s.node?.entry
      ? `entering at ${s.node.entry.id} in ${regionName(state, s.node.entry.region)}`
      : null,
    s.protocol ? `${protocolName(s.protocol)}${transport}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The protections: each setting as configured, and what it does right now. */
export function protectionWords(state: TuiState): string[] {
  const c = state.config;
  const p = state.status?.protection;
  if (!c) return [];
  const killSwitch =
    p?.kill_switch === 'active'
      ? ' (blocking outside the tunnel)'
      : p?.kill_switch === 'armed'
        ? ' (holds from the next connect)'
        : '';
  const split =
    p?.split === 'by-country'
      ? ` (cross-border only, home ${p.home_country ?? '?'})`
      : p?.split === 'unavailable'
        ? ' (home unknown: all tunneled)'
        : '';
  const dns = p && p.dns.length > 0 ? ` (${p.dns.join(', ')} in the tunnel)` : '';
  return [
    `Kill switch ${c.kill_switch ? 'on' : 'off'}${killSwitch}`,
    `Split ${c.split}${split}`,
    `DNS ${c.dns}${dns}`,
  ];
}

/** What the engine needs before it can connect, in a line. */
export function setupWords(s: LocalStatus): string | null {
  if (!s.service_configured) return 'Not set up: netcli init --endpoint <url>';
  if (!s.signed_in) return 'Not signed in: netcli account create, or netcli login <number>';
  return null;
}

export function Header({ state }: { state: TuiState }) {
  const s = state.status;
  const away = state.link.state === 'down';
  if (!s || away) {
    return (
      <Box flexDirection="column">
        <Text>
          <Text bold>Ferry</Text>
          {'  '}
          <Text color={away ? 'red' : 'gray'} bold>
            ● {away ? 'Engine not reachable' : 'Reaching the engine…'}
          </Text>
        </Text>
      </Box>
    );
  }
  const where = whereWords(state, s);
  const up = s.status === 'connected' || s.status === 'reconnecting';
  const setup = setupWords(s);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>Ferry</Text>
        {'  '}
        <Text color={STATE_COLORS[s.status]} bold>
          ● {ENGINE_STATE_WORDS[s.status]}
        </Text>
        {where ? `  ${where}` : ''}
      </Text>
      {s.status === 'error' && s.error ? (
        <Text color="red" wrap="truncate-end">
          {s.error.message}
          {s.protection.kill_switch === 'active'
            ? ' (traffic stays blocked while the kill switch holds: d disconnects)'
            : ''}
        </Text>
      ) : null}
      {s.status === 'disconnected' && s.error ? (
        <Text color="gray" wrap="truncate-end">
          Last attempt: {s.error.message}
        </Text>
      ) : null}
      <Text>
        Latency {up && s.latency ? <Text bold>{s.latency}</Text> : <Text color="gray">-</Text>}
        {up ? `  ${sparkline(s.latency_history, SPARK_WIDTH)}` : ''}
      </Text>
      {up && s.transport_reason ? (
        <Text color="gray" wrap="truncate-end">
          Transport: {s.transport_reason.message}
        </Text>
      ) : null}
      {protectionWords(state).length > 0 ? <Text>{protectionWords(state).join(' · ')}</Text> : null}
      {setup ? <Text color="yellow">{setup}</Text> : null}
    </Box>
  );
}
