// The fake engine's diagnostics: what a healthy host reports for the fake's state and
// configuration, each check replaceable by a test (a broken setup).
import {
  diagnosticCheck,
  diagnosticsReport,
  type ClientConfig,
  type DiagnosticCheck,
  type DiagnosticCheckId,
  type DiagnosticsReport,
  type LocalStatus,
} from '../../../contracts/index.js';

/**
 * A healthy host's report for the fake's state (with the node's and the control plane's
 * addresses in it, as a real one has; each finding and its facts as engine/diagnose states
 * them), each check replaced by its override.
 */
export function fakeDiagnosis(
  s: LocalStatus,
  config: ClientConfig,
  overrides: ReadonlyMap<DiagnosticCheckId, DiagnosticCheck>,
): DiagnosticsReport {
  const up = s.status === 'connected';
  const node = s.node?.id ?? 'hk-1';
  const checks: DiagnosticCheck[] = [
    up
      ? diagnosticCheck('engine', 'ok', `running (connected to ${node})`, null, {
          finding: 'connected',
          params: { node },
        })
      : diagnosticCheck('engine', 'ok', `running (${s.status})`, null, {
          finding: 'running',
          params: { state: s.status },
        }),
    config.service === null
      ? diagnosticCheck(
          'control-plane',
          'problem',
          'no control plane is configured',
          'netcli init --endpoint <url>',
          { finding: 'not-configured', action: { kind: 'setup' } },
        )
      : diagnosticCheck(
          'control-plane',
          'ok',
          '203.0.113.80:8080 answers in 4 ms (version 0.1.0)',
          null,
          { finding: 'answers', params: { host: '203.0.113.80:8080', ms: 4, version: '0.1.0' } },
        ),
    diagnosticCheck(
      'api-access',
      'ok',
      'the service is reached directly; a signed list of 2 relays to reach it through if it is blocked',
      null,
      { finding: 'direct', params: { count: 2 } },
    ),
    diagnosticCheck('clock', 'ok', "within a second of the control plane's clock", null, {
      finding: 'in-step',
    }),
    up
      ? diagnosticCheck('node-udp', 'ok', `the tunnel to ${node} runs over UDP`, null, {
          finding: 'tunnel',
          params: { node },
        })
      : diagnosticCheck(
          'node-udp',
          'ok',
          `${node} (asia-east) at 198.51.100.7 answers authenticated UDP probes (12 ms)`,
          null,
          { finding: 'answers', params: { node, region: 'asia-east', ms: 12 } },
        ),
    up
      ? diagnosticCheck('node-tcp', 'skipped', 'the tunnel runs over UDP', null, {
          finding: 'not-needed',
        })
      : diagnosticCheck(
          'node-tcp',
          'ok',
          `a TCP connect to ${node} (asia-east)'s Ferry port works`,
          null,
          { finding: 'connects', params: { node, region: 'asia-east' } },
        ),
    up
      ? diagnosticCheck('censorship', 'ok', 'no sign of interference: UDP gets through', null, {
          finding: 'udp-gets-through',
        })
      : diagnosticCheck('censorship', 'ok', 'UDP got through on this network before', null, {
          finding: 'udp-before',
        }),
    up
      ? diagnosticCheck(
          'dns-leak',
          'ok',
          'DNS queries reach the zone only through the node',
          null,
          {
            finding: 'through-node',
          },
        )
      : diagnosticCheck('dns-leak', 'skipped', 'connect first', null, { finding: 'not-connected' }),
    up
      ? diagnosticCheck('ipv6-leak', 'ok', 'no IPv6 route outside the tunnel', null, {
          finding: 'no-route',
        })
      : diagnosticCheck('ipv6-leak', 'skipped', 'connect first', null, {
          finding: 'not-connected',
        }),
    up
      ? diagnosticCheck(
          'mtu',
          'ok',
          "packets up to 1420 bytes (the tunnel's MTU) cross the tunnel",
          null,
          { finding: 'fits', params: { bytes: 1420 } },
        )
      : diagnosticCheck('mtu', 'skipped', 'connect first', null, { finding: 'not-connected' }),
    !config.kill_switch
      ? diagnosticCheck(
          'kill-switch',
          'warning',
          'off: traffic leaves outside the tunnel whenever it drops',
          'netcli config set kill_switch on',
          { finding: 'off', action: { kind: 'setting', key: 'kill_switch', value: 'on' } },
        )
      : up
        ? diagnosticCheck('kill-switch', 'ok', 'in force: 23 rules', null, {
            finding: 'in-force',
            params: { count: 23 },
          })
        : diagnosticCheck('kill-switch', 'ok', 'armed: holds from the next connect', null, {
            finding: 'armed',
          }),
    diagnosticCheck('split', 'ok', 'off: everything goes through the tunnel', null, {
      finding: 'off',
    }),
    up
      ? diagnosticCheck(
          'domestic-dns',
          'ok',
          'the system resolver is Ferry’s; with no home country every name goes through the tunnel',
          null,
          { finding: 'no-home' },
        )
      : diagnosticCheck('domestic-dns', 'skipped', 'applies while connected', null, {
          finding: 'not-connected',
        }),
  ].map((c) => overrides.get(c.id) ?? c);
  return diagnosticsReport(checks, new Date('2026-05-04T10:00:00Z'), 1_250);
}
