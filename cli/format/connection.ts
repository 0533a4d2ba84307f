// netcli's words for the connection: status, the connect answer, and the event stream's lines.
import {
  ENGINE_STATE_SENTENCE_WORDS,
  TRANSPORT_NAMES,
  protocolWords,
  type LocalConnectResponse,
  type LocalStatus,
  type Notice,
} from '../../contracts/index.js';
import { apiAccessLine } from './api-access.js';

/** netcli's name for a protocol: the catalog's (contracts/words/states.ts). */
export const protocolName = protocolWords;

const STATE_WORDS = ENGINE_STATE_SENTENCE_WORDS;

/** "asia-east (node hk-1) over WireGuard, ChaCha20-Poly1305": where the tunnel goes and how. */
function link(s: LocalStatus): string {
  const where = s.region ?? s.node?.region ?? 'a node';
  const entry = s.node?.entry ? `, entering at ${s.node.entry.id} in ${s.node.entry.region}` : '';
  const node = s.node ? ` (node ${s.node.id}${entry})` : '';
  const over = s.protocol
    ? ` over ${protocolName(s.protocol)}${s.transport && s.transport !== 'udp' ? ` (${TRANSPORT_NAMES[s.transport]})` : ''}`
    : '';
  const cipher = s.cipher ? `, ${s.cipher}` : '';
  return `${where}${node}${over}${cipher}`;
}

/** The first line of a status: the state, and where to when there is a where. */
export function statusHeadline(s: LocalStatus): string {
  switch (s.status) {
    case 'connected':
      return `Connected to ${link(s)}`;
    case 'connecting':
    case 'reconnecting':
      return s.region ? `${STATE_WORDS[s.status]} to ${s.region}` : STATE_WORDS[s.status];
    case 'error':
      return `Error: ${s.error?.message ?? 'the connection failed'}`;
    default:
      return STATE_WORDS[s.status];
  }
}

export function formatStatus(s: LocalStatus): string[] {
  const lines = [statusHeadline(s)];
  if (s.status === 'connected' || s.status === 'reconnecting') {
    const details = [
      s.latency ? `Latency ${s.latency}` : 'Latency not measured yet',
      s.mode ? `${s.mode} mode${s.platform ? ` (${s.platform})` : ''}` : undefined,
      s.interface ? `interface ${s.interface}` : undefined,
    ].filter(Boolean);
    lines.push(details.join(' · '));
    if (s.transport_reason) lines.push(`Transport: ${s.transport_reason.message}`);
  }
  if (s.status === 'connected' || s.status === 'reconnecting') lines.push(protectionLine(s));
  // Say what the firewall really does: blocking only while the kill switch's rules are in force.
  const blocking = s.protection.kill_switch === 'active';
  if (s.status === 'error')
    lines.push(
      blocking
        ? 'Traffic stays blocked while the kill switch is on: netcli disconnect opens it.'
        : 'No tunnel: traffic leaves directly, unprotected.',
    );
  else if (s.status === 'disconnected' && blocking)
    lines.push('Lockdown: traffic is blocked until you connect (netcli config set lockdown off).');
  else if (s.status === 'disconnected' && s.error) lines.push(`Last attempt: ${s.error.message}`);
  const through = apiAccessLine(s.api_access);
  if (through) lines.push(through);
  if (s.api_access.relay_list.refused)
    lines.push(`Relay list refused: ${s.api_access.relay_list.refused.message}`);
  if (s.service_insecure)
    lines.push(
      'Problem: the control plane is reached over plain HTTP: anyone on the path reads your account and can redirect the tunnel (netcli init --endpoint https://...)',
    );
  if (!s.service_configured) lines.push('Not set up: netcli init --endpoint <url>');
  else if (!s.signed_in)
    lines.push('Not signed in: netcli account create, or netcli login <number>');
  for (const n of s.notices) lines.push(formatNotice(n));
  return lines;
}

/** "Kill switch on · only cross-border traffic tunneled (home DE) · DNS 10.64.0.1 in the tunnel". */
export function protectionLine(s: LocalStatus): string {
  const p = s.protection;
  const killSwitch = p.kill_switch === 'off' ? 'Kill switch off' : 'Kill switch on';
  const split =
    p.split === 'by-country'
      ? `only cross-border traffic tunneled (home ${p.home_country ?? '?'})`
      : p.split === 'unavailable'
        ? 'everything tunneled (home country unknown)'
        : 'everything tunneled';
  const dns = p.dns.length > 0 ? `DNS ${p.dns.join(', ')} in the tunnel` : 'system DNS';
  return [killSwitch, split, dns].join(' · ');
}

export function formatNotice(n: Notice): string {
  return `Note: ${n.message}`;
}

export function formatConnect(answer: LocalConnectResponse, verbose: boolean): string[] {
  const lines = [statusHeadline(answer)];
  lines.push(answer.latency ? `Latency ${answer.latency}` : 'Latency not measured yet');
  const before = answer.exit_ip.before ?? 'not measured';
  const after = answer.exit_ip.after ?? 'not measured';
  lines.push(`Exit IP ${before} -> ${after}`);
  if (verbose) {
    lines.push(`Routing: ${answer.routing.strategy}`);
    for (const reason of answer.routing.reasons) lines.push(`  - ${reason}`);
    if (answer.mode)
      lines.push(`Mode: ${answer.mode}${answer.platform ? ` for ${answer.platform}` : ''}`);
    if (answer.transport)
      lines.push(
        `Transport: ${answer.transport_reason?.message ?? TRANSPORT_NAMES[answer.transport]}`,
      );
    for (const n of answer.notices) lines.push(formatNotice(n));
  }
  return lines;
}

/** One line per event of `status --watch`, stamped with the local time. */
export function formatWatchLine(
  event: { event: 'status'; data: LocalStatus } | { event: 'notice'; data: Notice },
  at: Date,
): string {
  const time = at.toTimeString().slice(0, 8);
  if (event.event === 'notice') return `${time} ${formatNotice(event.data)}`;
  const s = event.data;
  const latency = s.status === 'connected' && s.latency ? ` · ${s.latency}` : '';
  return `${time} ${statusHeadline(s)}${latency}`;
}
