// Runs the diagnostics' checks, the independent ones at once, within one time bound (~10 s):
// a check that has not finished by then says so rather than holding the report up.
import {
  diagnosticCheck,
  diagnosticsReport,
  SHIPPED_DOMESTIC_NAMES,
  type ApiAccessStatus,
  type DiagnosticCheck,
  type DiagnosticCheckId,
  type DiagnosticsReport,
  type EngineState,
} from '../../contracts/index.js';
import { FerryError } from '../errors.js';
import { checkCensorship, type CensorshipDeps } from './censorship.js';
import { checkApiAccess } from './api-access.js';
import { checkControlPlane, type ControlPlaneDeps } from './control-plane.js';
import { checkDnsLeak, type DnsLeakDeps } from './dns-leak.js';
import { checkIpv6Leak, type Ipv6LeakDeps } from './ipv6-leak.js';
import { checkKillSwitch, type KillSwitchDeps } from './kill-switch.js';
import { checkMtu, type MtuDeps } from './mtu.js';
import { checkNodeReach, type NodeReachDeps } from './node-reach.js';
import { checkSplit, type SplitDeps } from './split.js';
import { checkDomesticDns, type DomesticDnsDeps } from './domestic-dns.js';

/** Everything the checks ask, each part injected (engine/diagnose/engine-deps.ts: the real ones). */
export interface DiagnoseDeps {
  engine: { state: EngineState; nodeId: string | null };
  /** How the engine reaches its control plane (the status's api_access). */
  apiAccess: ApiAccessStatus;
  control: ControlPlaneDeps;
  node: NodeReachDeps;
  censorship: CensorshipDeps;
  /** The zone comes from the control plane. */
  dns: Omit<DnsLeakDeps, 'zone'>;
  /** The probe comes from the control plane. */
  ipv6: Omit<Ipv6LeakDeps, 'probe'>;
  mtu: MtuDeps;
  killSwitch: KillSwitchDeps;
  split: SplitDeps;
  /** The test name comes from the control plane (else the shipped ones). */
  domesticDns: Omit<DomesticDnsDeps, 'name'>;
}

export interface RunOptions {
  /** Aborting (the client went away) rejects with its reason. */
  signal?: AbortSignal | undefined;
  /** The whole run's bound (default 10 s). */
  timeoutMs?: number;
  /** The report's time (default: now). */
  now?: () => Date;
}

export const DIAGNOSE_TIMEOUT_MS = 10_000;

function engineCheck(e: DiagnoseDeps['engine']): DiagnosticCheck {
  if (e.nodeId && e.state === 'connected')
    return diagnosticCheck('engine', 'ok', `running (connected to ${e.nodeId})`, null, {
      finding: 'connected',
      params: { node: e.nodeId },
    });
  return diagnosticCheck('engine', 'ok', `running (${e.state})`, null, {
    finding: 'running',
    params: { state: e.state },
  });
}

export async function runDiagnostics(
  deps: DiagnoseDeps,
  opts: RunOptions = {},
): Promise<DiagnosticsReport> {
  opts.signal?.throwIfAborted();
  const checkedAt = (opts.now ?? (() => new Date()))();
  const started = performance.now();
  const timeoutMs = opts.timeoutMs ?? DIAGNOSE_TIMEOUT_MS;
  const bound = new AbortController();
  const timer = setTimeout(
    () => bound.abort(new FerryError('cancelled', 'the diagnostics ran out of time')),
    timeoutMs,
  );
  const onOuter = () => bound.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onOuter, { once: true });
  const signal = bound.signal;
  const expired = new Promise<'expired'>((resolve) =>
    signal.addEventListener('abort', () => resolve('expired'), { once: true }),
  );
  const seconds = Math.round(timeoutMs / 1000);

  /** A check's result, or what stands in for it when it failed or ran out of time. */
  const bounded = async (
    ids: readonly DiagnosticCheckId[],
    work: () => Promise<DiagnosticCheck[]>,
  ): Promise<DiagnosticCheck[]> => {
    try {
      const result = await Promise.race([work(), expired]);
      if (result !== 'expired') return result;
    } catch (e) {
      if (!signal.aborted) {
        const why = e instanceof FerryError ? e.message : 'an unexpected error';
        return ids.map((id) =>
          diagnosticCheck(
            id,
            'warning',
            `the check could not run (${why})`,
            'run netcli diagnose again',
            { finding: 'failed', params: { detail: why }, action: { kind: 'rerun' } },
          ),
        );
      }
    }
    return ids.map((id) =>
      diagnosticCheck(
        id,
        'warning',
        `no result within ${seconds} s`,
        'run netcli diagnose again; if it repeats, the network here is very slow',
        { finding: 'timed-out', params: { seconds }, action: { kind: 'rerun' } },
      ),
    );
  };

  try {
    const control = checkControlPlane(deps.control, signal);
    control.catch(() => undefined); // awaited below, by each that needs it
    const groups = await Promise.all([
      bounded(['control-plane', 'clock'], async () => {
        const c = await control;
        return [c.controlPlane, c.clock];
      }),
      bounded(['api-access'], async () => [checkApiAccess(deps.apiAccess)]),
      bounded(['node-udp', 'node-tcp'], () => checkNodeReach(deps.node, signal)),
      bounded(['censorship'], async () => [await checkCensorship(deps.censorship)]),
      bounded(['dns-leak'], async () => {
        const zone = (await control).published?.dns_leak_zone ?? null;
        return [await checkDnsLeak({ ...deps.dns, zone }, signal)];
      }),
      bounded(['ipv6-leak'], async () => {
        const probe = (await control).published?.ipv6_probe ?? null;
        return [await checkIpv6Leak({ ...deps.ipv6, probe }, signal)];
      }),
      bounded(['mtu'], async () => [await checkMtu(deps.mtu, signal)]),
      bounded(['kill-switch'], async () => [await checkKillSwitch(deps.killSwitch)]),
      bounded(['split'], async () => [checkSplit(deps.split)]),
      bounded(['domestic-dns'], async () => {
        const published = (await control).published?.domestic_names ?? {};
        const name = (cc: string) => published[cc] ?? SHIPPED_DOMESTIC_NAMES[cc] ?? null;
        return [await checkDomesticDns({ ...deps.domesticDns, name }, signal)];
      }),
    ]);
    opts.signal?.throwIfAborted();
    return diagnosticsReport(
      [engineCheck(deps.engine), ...groups.flat()],
      checkedAt,
      performance.now() - started,
    );
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onOuter);
    // Whatever still runs (a probe past the bound) stops now.
    if (!signal.aborted) bound.abort(new FerryError('superseded', 'the diagnostics are done'));
  }
}
