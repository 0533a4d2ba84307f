// The censor's nftables table on the test internet's router, from its settings: the profiles
// that a rule can say (udp-block, udp-throttle, port-block, tcp-budget's byte count, the block
// sets) and the selection of the few packets the inspector must see. On the forward hook:
// `inspect` (priority -200) drops what is already blocked and marks what to queue; iptables'
// mangle FORWARD (-150) queues the marked packets (this kernel has the xt NFQUEUE target but not
// nft's queue expression; see queueRule); `enforce` (0) acts on the marks of the inspector's
// verdicts and on the static profiles.
import { MARK, type Settings } from './profiles.js';

export const CENSOR_TABLE = 'ferry_censor';

/** The nft script that creates the table (run after deleting any old one). */
export function censorRuleset(s: Settings, inspected: boolean): string {
  const on = (p: Settings['profiles'][number]) => s.profiles.includes(p);
  const out = 'ip saddr @home ip daddr != @home';
  const inb = 'ip daddr @home ip saddr != @home';
  const elements = (cidrs: readonly string[]) =>
    cidrs.length ? ` elements = { ${cidrs.join(', ')} };` : '';
  const lines: string[] = [
    `table inet ${CENSOR_TABLE} {`,
    `  set home { type ipv4_addr; flags interval;${elements(s.home)} }`,
    `  set hosting { type ipv4_addr; flags interval;${elements(s.hosting)} }`,
    // allowlist: the foreign prefixes that still answer.
    `  set allow { type ipv4_addr; flags interval;${elements(s.allow)} }`,
    // service-block: the control plane's addresses.
    `  set service { type ipv4_addr; flags interval;${elements(s.service.addresses)} }`,
    // fet: (client, server, port) dropped for fetBlockSeconds.
    '  set fet_block { type ipv4_addr . ipv4_addr . inet_service; flags timeout; }',
    // prober: (server, port) found to be a proxy, dropped for good.
    '  set probe_block { type ipv4_addr . inet_service; }',
    // udp-throttle: the flows still in their grace period.
    '  set udp_young { typeof ct id; flags timeout; }',
    '  chain inspect {',
    '    type filter hook forward priority -200; policy accept;',
    `    ${out} ip daddr . tcp dport @probe_block drop`,
    `    ${inb} ip saddr . tcp sport @probe_block drop`,
    `    ${out} ip saddr . ip daddr . tcp dport @fet_block drop`,
    `    ${inb} ip daddr . ip saddr . tcp sport @fet_block drop`,
    `    ct mark & ${MARK.drop} == ${MARK.drop} drop`,
    `    ct mark & ${MARK.reset} == ${MARK.reset} meta l4proto tcp reject with tcp reset`,
  ];
  if (on('allowlist'))
    lines.push(`    ${out} ip daddr != @allow drop`, `    ${inb} ip saddr != @allow drop`);
  if (on('service-block'))
    lines.push(`    ${out} ip daddr @service drop`, `    ${inb} ip saddr @service drop`);
  if (inspected) {
    // The first packets of each foreign TCP connection from home: enough for a ClientHello of
    // several segments; after its verdict (MARK.done) none. Bulk transfers are never queued.
    lines.push(
      `    ${out} meta l4proto tcp tcp flags & (syn | rst) == 0 ct mark & ${MARK.done} == 0 ct original packets < 16 meta mark set ${MARK.queue}`,
    );
    if (on('sni-block') || on('service-block'))
      lines.push(
        `    ${out} udp dport 443 ct mark & ${MARK.done} == 0 ct original packets < 8 meta mark set ${MARK.queue}`,
        `    ${inb} udp sport 53 meta mark set ${MARK.queue}`,
      );
  }
  lines.push(
    '  }',
    '  chain enforce {',
    '    type filter hook forward priority 0; policy accept;',
    `    meta mark & ${MARK.fetFlag} == ${MARK.fetFlag} add @fet_block { ip saddr . ip daddr . tcp dport timeout ${s.fetBlockSeconds}s } drop`,
    '    meta mark & 0xff != 0 ct mark set meta mark and 0xff',
    `    ct mark & ${MARK.drop} == ${MARK.drop} drop`,
    `    ct mark & ${MARK.reset} == ${MARK.reset} meta l4proto tcp reject with tcp reset`,
  );
  if (on('udp-block'))
    lines.push(`    ${out} meta l4proto udp drop`, `    ${inb} meta l4proto udp drop`);
  if (on('port-block') && s.port)
    lines.push(`    ${out} meta l4proto ${s.port.protocol} th dport ${s.port.port} drop`);
  if (on('udp-throttle')) {
    const bytesPerSecond = Math.max(1, Math.round((s.udpRateKbit * 1000) / 8));
    // Whichever end began the flow (a relay's keepalive may come first); each way at the rate.
    for (const [way, match] of [
      ['out', out],
      ['in', inb],
    ] as const)
      lines.push(
        `    ${match} meta l4proto udp ct state new add @udp_young { ct id timeout ${s.udpGraceSeconds}s }`,
        `    ${match} meta l4proto udp ct id != @udp_young meter udp_slow_${way} { ct id limit rate over ${bytesPerSecond} bytes/second } drop`,
      );
  }
  if (on('tcp-budget'))
    lines.push(
      `    ct original ip saddr @home ct original ip daddr @hosting ct direction reply meta l4proto tcp ct mark & ${MARK.sniAllowed} == 0 ct reply bytes > ${s.tcpBudgetBytes} drop`,
    );
  lines.push('  }', '}');
  return lines.join('\n') + '\n';
}

/** The iptables arguments (after -A/-D) of the rule that queues the marked packets. */
export function queueRule(queue: number): string[] {
  return [
    'FORWARD',
    '-m',
    'mark',
    '--mark',
    `${MARK.queue}/${MARK.queue}`,
    '-j',
    'NFQUEUE',
    '--queue-num',
    String(queue),
  ];
}
