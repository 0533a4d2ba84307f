// netcli's words for the connection: status, the connect answer, and the event stream's lines.
import {
  engineStateSentenceWords,
  noticeText,
  protocolWords,
  transportNames,
  transportReasonText,
  type LocalConnectResponse,
  type LocalStatus,
  type Notice,
  type Translate,
  type Transport,
  type TransportReason,
} from '../../contracts/index.js';
import { apiAccessLine } from './api-access.js';
import { english, isEnglish, latencyText } from './words.js';

/** netcli's name for a protocol: the catalog's (contracts/words/states.ts). */
export const protocolName = protocolWords;

/** Why the tunnel runs over its transport, in the language (English: the engine's words). */
function transportReason(
  reason: TransportReason,
  transport: Transport | null,
  t: Translate,
): string {
  if (isEnglish(t) || !transport) return reason.message;
  return transportReasonText(transport, reason.code, reason.blocked, t);
}

/** "asia-east (node hk-1) over WireGuard, ChaCha20-Poly1305": where the tunnel goes and how. */
function link(s: LocalStatus, t: Translate): string {
  const where = s.region ?? s.node?.region ?? t('output.connection.aNode');
  const entry = s.node?.entry
    ? t('output.connection.entry', { entry: s.node.entry.id, region: s.node.entry.region })
    : '';
  const node = s.node ? t('output.connection.node', { node: s.node.id, entry }) : '';
  const over = s.protocol
    ? s.transport && s.transport !== 'udp'
      ? t('output.connection.overTransport', {
          protocol: protocolName(s.protocol, t),
          transport: transportNames(t)[s.transport],
        })
      : t('output.connection.over', { protocol: protocolName(s.protocol, t) })
    : '';
  const cipher = s.cipher ? t('output.connection.cipher', { cipher: s.cipher }) : '';
  return `${where}${node}${over}${cipher}`;
}

/** The first line of a status: the state, and where to when there is a where. */
export function statusHeadline(s: LocalStatus, t: Translate = english): string {
  const states = engineStateSentenceWords(t);
  switch (s.status) {
    case 'connected':
      return t('output.connection.connectedTo', { link: link(s, t) });
    case 'connecting':
    case 'reconnecting':
      return s.region
        ? t('output.connection.stateTo', { state: states[s.status], region: s.region })
        : states[s.status];
    case 'error':
      return t('output.connection.error', {
        message: s.error?.message ?? t('output.connection.failed'),
      });
    default:
      return states[s.status];
  }
}

export function formatStatus(s: LocalStatus, t: Translate = english): string[] {
  const lines = [statusHeadline(s, t)];
  if (s.status === 'connected' || s.status === 'reconnecting') {
    const mode = s.mode
      ? s.platform
        ? t('output.connection.modeFor', { mode: s.mode, platform: s.platform })
        : t('output.connection.mode', { mode: s.mode })
      : undefined;
    const details = [
      s.latency
        ? t('output.connection.latency', { latency: latencyText(s.latency, t) })
        : t('output.connection.latencyUnknown'),
      mode,
      s.interface ? t('output.connection.interface', { name: s.interface }) : undefined,
    ].filter(Boolean);
    lines.push(details.join(' · '));
    if (s.transport_reason)
      lines.push(
        t('output.connection.transport', {
          reason: transportReason(s.transport_reason, s.transport, t),
        }),
      );
  }
  if (s.status === 'connected' || s.status === 'reconnecting') lines.push(protectionLine(s, t));
  // Say what the firewall really does: blocking only while the kill switch's rules are in force.
  const blocking = s.protection.kill_switch === 'active';
  if (s.status === 'error')
    lines.push(
      blocking ? t('output.connection.errorBlocked') : t('output.connection.errorUnprotected'),
    );
  else if (s.status === 'disconnected' && blocking) lines.push(t('output.connection.lockdown'));
  else if (s.status === 'disconnected' && s.error)
    lines.push(t('output.connection.lastAttempt', { message: s.error.message }));
  const through = apiAccessLine(s.api_access, t);
  if (through) lines.push(through);
  if (s.api_access.relay_list.refused)
    lines.push(
      t('output.connection.relayListRefused', {
        message: s.api_access.relay_list.refused.message,
      }),
    );
  if (s.service_insecure) lines.push(t('output.connection.insecure'));
  if (!s.service_configured) lines.push(t('output.connection.notSetUp'));
  else if (!s.signed_in) lines.push(t('output.connection.notSignedIn'));
  for (const n of s.notices) lines.push(formatNotice(n, t));
  return lines;
}

/** "Kill switch on · only cross-border traffic tunneled (home DE) · DNS 10.64.0.1 in the tunnel". */
export function protectionLine(s: LocalStatus, t: Translate = english): string {
  const p = s.protection;
  const killSwitch =
    p.kill_switch === 'off'
      ? t('output.connection.killSwitchOff')
      : t('output.connection.killSwitchOn');
  const split =
    p.split === 'by-country'
      ? t('output.connection.splitByCountry', { country: p.home_country ?? '?' })
      : p.split === 'unavailable'
        ? t('output.connection.splitUnavailable')
        : t('output.connection.splitOff');
  const dns =
    p.dns.length > 0
      ? t('output.connection.dnsTunnel', { dns: p.dns.join(', ') })
      : t('output.connection.dnsSystem');
  return [killSwitch, split, dns].join(' · ');
}

/** The command that makes a notice's fix, said after its words on a terminal (the app has a button). */
const NOTICE_COMMANDS: Readonly<Record<string, string>> = {
  'split-unavailable': 'netcli config set home_country <code>',
};

export function formatNotice(n: Notice, t: Translate = english): string {
  const command = Object.hasOwn(NOTICE_COMMANDS, n.code) ? NOTICE_COMMANDS[n.code] : undefined;
  const words = noticeText(n, t);
  return t('output.connection.note', { message: command ? `${words} (${command})` : words });
}

export function formatConnect(
  answer: LocalConnectResponse,
  verbose: boolean,
  t: Translate = english,
): string[] {
  const lines = [statusHeadline(answer, t)];
  lines.push(
    answer.latency
      ? t('output.connection.latency', { latency: latencyText(answer.latency, t) })
      : t('output.connection.latencyUnknown'),
  );
  const before = answer.exit_ip.before ?? t('output.connection.notMeasured');
  const after = answer.exit_ip.after ?? t('output.connection.notMeasured');
  lines.push(t('output.connection.exitIp', { before, after }));
  if (verbose) {
    lines.push(t('output.connection.routing', { strategy: answer.routing.strategy }));
    for (const reason of answer.routing.reasons) lines.push(`  - ${reason}`);
    if (answer.mode)
      lines.push(
        answer.platform
          ? t('output.connection.connectModeFor', { mode: answer.mode, platform: answer.platform })
          : t('output.connection.connectMode', { mode: answer.mode }),
      );
    if (answer.transport)
      lines.push(
        t('output.connection.transport', {
          reason: answer.transport_reason
            ? transportReason(answer.transport_reason, answer.transport, t)
            : transportNames(t)[answer.transport],
        }),
      );
    for (const n of answer.notices) lines.push(formatNotice(n, t));
  }
  return lines;
}

/** One line per event of `status --watch`, stamped with the local time. */
export function formatWatchLine(
  event: { event: 'status'; data: LocalStatus } | { event: 'notice'; data: Notice },
  at: Date,
  t: Translate = english,
): string {
  const time = at.toTimeString().slice(0, 8);
  if (event.event === 'notice') return `${time} ${formatNotice(event.data, t)}`;
  const s = event.data;
  const latency = s.status === 'connected' && s.latency ? ` · ${latencyText(s.latency, t)}` : '';
  return `${time} ${statusHeadline(s, t)}${latency}`;
}
