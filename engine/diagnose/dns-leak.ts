// Whether DNS queries leave outside the tunnel (dns-leak): a fresh name under the control
// plane's leak-test zone, looked up through the system resolver as apps do, is answered by the
// zone's authority with the address of the resolver that asked it. Through the tunnel that is
// the node (its resolver asks from the node's address); anything else reached the zone another
// way. The name is ours and random: no query of the user's is made or reported.
import { randomBytes } from 'node:crypto';
import { diagnosticCheck, type DiagnosticCheck } from '../../contracts/index.js';

export interface DnsLeakDeps {
  /** A tunnel carries traffic now (a leak shows only then). */
  connected: boolean;
  /** The leak-test zone (null: the control plane publishes none). */
  zone: string | null;
  /**
   * Where queries through the tunnel reach the zone from: the node's exit address (the address
   * the service saw through the tunnel) and the node's endpoint address.
   */
  expected: readonly string[];
  /** The resolver the user configured (dns <ip>); null with dns auto (the node's). */
  configured: string | null;
  /** The system resolver's IPv4 answer for a name; rejects when it gave none. */
  lookup(name: string, signal: AbortSignal): Promise<string[]>;
  /** A fresh label (default: 12 random hex digits). */
  label?: () => string;
}

export const DNS_LEAK_FIX =
  'turn the kill switch on (it drops DNS to any other resolver) and reconnect, or netcli config set dns auto';

export async function checkDnsLeak(
  deps: DnsLeakDeps,
  signal: AbortSignal,
): Promise<DiagnosticCheck> {
  if (!deps.connected)
    return diagnosticCheck(
      'dns-leak',
      'skipped',
      'connect first: a leak shows only while the tunnel is up',
      null,
      { finding: 'not-connected' },
    );
  if (deps.zone === null)
    return diagnosticCheck(
      'dns-leak',
      'skipped',
      'the control plane names no DNS leak-test zone',
      null,
      { finding: 'no-zone' },
    );
  const label = deps.label?.() ?? randomBytes(6).toString('hex');
  let answer: string[];
  try {
    answer = await deps.lookup(`${label}.${deps.zone}`, signal);
  } catch {
    signal.throwIfAborted();
    answer = [];
  }
  if (answer.length === 0)
    return diagnosticCheck(
      'dns-leak',
      'warning',
      'the system resolver did not answer through the tunnel',
      'reconnect so that Ferry sets the system resolver',
      { finding: 'no-answer', action: { kind: 'reconnect' } },
    );
  const expected = new Set(deps.expected);
  const foreign = answer.filter((a) => !expected.has(a));
  if (foreign.length === 0)
    return diagnosticCheck(
      'dns-leak',
      'ok',
      'DNS queries reach the zone only through the node',
      null,
      { finding: 'through-node' },
    );
  if (deps.configured !== null && foreign.every((a) => a === deps.configured))
    return diagnosticCheck(
      'dns-leak',
      'ok',
      `DNS queries reach the zone only through your resolver ${deps.configured}`,
      null,
      { finding: 'through-resolver', params: { resolver: deps.configured } },
    );
  if (deps.configured !== null)
    // The configured resolver may ask the zone from an address of its own: not provably a leak.
    return diagnosticCheck(
      'dns-leak',
      'warning',
      `DNS queries reach the zone from ${foreign[0]}: your resolver ${deps.configured}'s own address, or a leak`,
      'netcli config set dns auto shows which: with the node’s resolver, a leak is certain',
      {
        finding: 'resolver-or-leak',
        params: { address: foreign[0]!, resolver: deps.configured },
        action: { kind: 'setting', key: 'dns', value: 'auto' },
      },
    );
  return diagnosticCheck(
    'dns-leak',
    'problem',
    `DNS queries leave outside the tunnel (they reach ${foreign[0]})`,
    DNS_LEAK_FIX,
    {
      finding: 'leak',
      params: { address: foreign[0]! },
      action: { kind: 'setting', key: 'kill_switch', value: 'on' },
    },
  );
}
