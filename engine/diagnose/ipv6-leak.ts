// Whether IPv6 leaves outside the tunnel (ipv6-leak). The tunnels carry IPv4; IPv6 that is not
// tunneled must be dropped. A host without an IPv6 route outside the tunnels cannot leak it;
// otherwise a TCP connect over IPv6 to the control plane's IPv6 probe must not get through.
import { diagnosticCheck, parseIpv6Endpoint, type DiagnosticCheck } from '../../contracts/index.js';
import type { TcpOutcome } from './node-reach.js';

export interface Ipv6LeakDeps {
  /** A tunnel carries traffic now (a leak shows only then). */
  connected: boolean;
  /** `[addr]:port` of a TCP service reachable over IPv6 (null: none published). */
  probe: string | null;
  /** Whether IPv6 to `address` would leave by a route outside the tunnels. */
  routeOutside(address: string): Promise<boolean>;
  connectTcp(address: string, port: number, signal: AbortSignal): Promise<TcpOutcome>;
  /** Whether the protection table in force drops IPv6 outside the tunnels. */
  blocksIpv6: boolean;
}

export const IPV6_FIX = 'turn the kill switch on: it blocks the IPv6 the tunnel does not carry';
const KILL_SWITCH_ON = { kind: 'setting', key: 'kill_switch', value: 'on' } as const;
/** Any global unicast address (2000::/3), for the routing table when no probe is known. */
const ANY_GLOBAL_IPV6 = '2000::1';

export async function checkIpv6Leak(
  deps: Ipv6LeakDeps,
  signal: AbortSignal,
): Promise<DiagnosticCheck> {
  if (!deps.connected)
    return diagnosticCheck(
      'ipv6-leak',
      'skipped',
      'connect first: a leak shows only while the tunnel is up',
      null,
      { finding: 'not-connected' },
    );
  const probe = deps.probe === null ? null : parseIpv6Endpoint(deps.probe);
  if (!(await deps.routeOutside(probe?.address ?? ANY_GLOBAL_IPV6)))
    return diagnosticCheck('ipv6-leak', 'ok', 'no IPv6 route outside the tunnel', null, {
      finding: 'no-route',
    });
  if (probe === null) {
    return deps.blocksIpv6
      ? diagnosticCheck(
          'ipv6-leak',
          'ok',
          'the protection table drops IPv6 outside the tunnel (no IPv6 probe to try it with)',
          null,
          { finding: 'dropped' },
        )
      : diagnosticCheck(
          'ipv6-leak',
          'warning',
          'this host has an IPv6 route outside the tunnel and nothing drops IPv6 there',
          IPV6_FIX,
          { finding: 'open', action: KILL_SWITCH_ON },
        );
  }
  const outcome = await deps.connectTcp(probe.address, probe.port, signal);
  switch (outcome) {
    case 'connected':
    case 'refused':
      // A refusal came back from the far side: the connect left this host all the same.
      return diagnosticCheck(
        'ipv6-leak',
        'problem',
        `IPv6 leaves outside the tunnel (a TCP connect over IPv6 ${outcome === 'connected' ? 'got through' : 'was answered'})`,
        IPV6_FIX,
        { finding: outcome === 'connected' ? 'leak' : 'leak-answered', action: KILL_SWITCH_ON },
      );
    case 'blocked':
      return diagnosticCheck(
        'ipv6-leak',
        'ok',
        'IPv6 outside the tunnel is dropped by the firewall',
        null,
        { finding: 'firewall' },
      );
    case 'timeout':
      return diagnosticCheck(
        'ipv6-leak',
        'ok',
        'IPv6 outside the tunnel gets nowhere (no answer within 2 s)',
        null,
        { finding: 'no-answer', params: { seconds: 2 } },
      );
    case 'unreachable':
      return diagnosticCheck('ipv6-leak', 'ok', 'IPv6 outside the tunnel finds no way out', null, {
        finding: 'no-way-out',
      });
  }
}
