// The control plane's checks: it answers GET /health (control-plane), and this host's clock
// agrees with the Date of that answer (clock). Also what it publishes for the leak checks
// (GET /diagnostics: the DNS leak-test zone, the IPv6 probe).
import {
  ApiError,
  createControlClient,
  diagnosticCheck,
  type ControlDiagnostics,
  type DiagnosticCheck,
  serviceIsInsecure,
  type FetchLike,
} from '../../contracts/index.js';

export interface ControlPlaneDeps {
  /** The configured control plane's URL (null: none configured). */
  service: string | null;
  /** The engine's transport to it. */
  fetch: FetchLike;
  /** The host's clock (default Date.now). */
  now?: () => number;
  /** Time limit of each call (default 4 s). */
  timeoutMs?: number;
}

export interface ControlPlaneFindings {
  controlPlane: DiagnosticCheck;
  clock: DiagnosticCheck;
  /** What the control plane publishes for diagnostics (null: nothing known). */
  published: ControlDiagnostics | null;
}

/** WireGuard and Ferry handshakes carry timestamps: this far off, they are refused. */
export const CLOCK_PROBLEM_SECONDS = 60;
export const CLOCK_WARNING_SECONDS = 10;
const CLOCK_FIX = 'turn on time sync: timedatectl set-ntp true';

/**
 * The clock check for a measured skew (this host minus the control plane, in ms; the Date
 * header counts whole seconds, so anything under about a second is "in step").
 */
export function clockCheck(skewMs: number): DiagnosticCheck {
  const seconds = Math.round(Math.abs(skewMs) / 1000);
  if (seconds < 2)
    return diagnosticCheck('clock', 'ok', "within a second of the control plane's clock", null, {
      finding: 'in-step',
    });
  const ahead = skewMs > 0;
  const off = `this host's clock is ${seconds} s ${ahead ? 'ahead of' : 'behind'} the control plane's`;
  const params = { seconds };
  if (seconds >= CLOCK_PROBLEM_SECONDS)
    return diagnosticCheck(
      'clock',
      'problem',
      `${off}: tunnel handshakes fail (WireGuard and Ferry reject stale timestamps)`,
      CLOCK_FIX,
      { finding: ahead ? 'far-ahead' : 'far-behind', params },
    );
  if (seconds >= CLOCK_WARNING_SECONDS)
    return diagnosticCheck(
      'clock',
      'warning',
      `${off}: getting close to where tunnel handshakes fail`,
      CLOCK_FIX,
      { finding: ahead ? 'drifting-ahead' : 'drifting-behind', params },
    );
  return diagnosticCheck('clock', 'ok', `${off}: close enough`, null, {
    finding: ahead ? 'slightly-ahead' : 'slightly-behind',
    params,
  });
}

/** What a failed call says about the control plane, in words. */
function unanswered(host: string, e: unknown, timeoutMs: number): DiagnosticCheck {
  const fixNetwork = "check this host's network and the service URL (netcli config get service)";
  const checkUrl = 'check the service URL: netcli config get service';
  const setup = { kind: 'setup' } as const;
  if (e instanceof ApiError) {
    if (e.code === 'timeout') {
      const seconds = Math.round(timeoutMs / 1000);
      return diagnosticCheck(
        'control-plane',
        'problem',
        `${host} did not answer within ${seconds} s`,
        fixNetwork,
        { finding: 'timeout', params: { host, seconds } },
      );
    }
    if (e.code === 'unreachable')
      return diagnosticCheck(
        'control-plane',
        'problem',
        `${host} did not answer (${e.detail})`,
        fixNetwork,
        { finding: 'unreachable', params: { host, detail: e.detail } },
      );
    if (e.code === 'untrusted-certificate')
      return diagnosticCheck(
        'control-plane',
        'problem',
        `${host} did not prove who it is: ${e.detail}`,
        'if the service uses a private CA, give it: netcli init --endpoint <url> --ca-file <ca.pem>; otherwise someone may be in the way',
        { finding: 'untrusted-certificate', params: { host, detail: e.detail }, action: setup },
      );
    if (e.code === 'bad-response')
      return diagnosticCheck(
        'control-plane',
        'problem',
        `${host} answered, but not as a Ferry control plane does (${e.detail})`,
        checkUrl,
        { finding: 'not-ferry', params: { host, detail: e.detail }, action: setup },
      );
    if (e.status !== undefined) {
      const params = { host, status: e.status, code: e.code };
      return e.status >= 500
        ? diagnosticCheck(
            'control-plane',
            'problem',
            `${host} answered HTTP ${e.status} (${e.code})`,
            'the service has trouble: try again in a minute',
            { finding: 'server-error', params, action: { kind: 'rerun' } },
          )
        : diagnosticCheck(
            'control-plane',
            'problem',
            `${host} answered HTTP ${e.status} (${e.code})`,
            checkUrl,
            { finding: 'http-error', params, action: setup },
          );
    }
  }
  return diagnosticCheck('control-plane', 'problem', `${host} could not be asked`, fixNetwork, {
    finding: 'not-asked',
    params: { host },
  });
}

export async function checkControlPlane(
  deps: ControlPlaneDeps,
  signal: AbortSignal,
): Promise<ControlPlaneFindings> {
  if (deps.service === null) {
    return {
      controlPlane: diagnosticCheck(
        'control-plane',
        'problem',
        'no control plane is configured',
        'netcli init --endpoint <url>',
        { finding: 'not-configured', action: { kind: 'setup' } },
      ),
      clock: diagnosticCheck('clock', 'skipped', 'no control plane to compare with', null, {
        finding: 'no-control-plane',
      }),
      published: null,
    };
  }
  const now = deps.now ?? Date.now;
  const timeoutMs = deps.timeoutMs ?? 4_000;
  const host = new URL(deps.service).host;
  // The health answer's Date, and when it was asked and answered by this host's clock.
  let timing: { sentAt: number; receivedAt: number; date: string | null } | null = null;
  const timed: FetchLike = async (url, init) => {
    const sentAt = now();
    const response = await deps.fetch(url, init);
    timing = { sentAt, receivedAt: now(), date: response.headers.get('date') };
    return response;
  };
  const health = createControlClient({ baseUrl: deps.service, fetch: timed, timeoutMs });
  const control = createControlClient({ baseUrl: deps.service, fetch: deps.fetch, timeoutMs });
  const [answer, published] = await Promise.all([
    health.health({ signal }).then(
      (h) => ({ ok: true as const, version: h.version }),
      (e: unknown) => ({ ok: false as const, error: e }),
    ),
    control.diagnostics({ signal }).catch(() => null),
  ]);
  signal.throwIfAborted();
  if (!answer.ok) {
    return {
      controlPlane: unanswered(host, answer.error, timeoutMs),
      clock: diagnosticCheck('clock', 'skipped', 'the control plane did not answer', null, {
        finding: 'no-answer',
      }),
      published,
    };
  }
  const t = timing as { sentAt: number; receivedAt: number; date: string | null } | null;
  const serverMs = t?.date ? Date.parse(t.date) : NaN;
  const rtt = t ? Math.round(t.receivedAt - t.sentAt) : null;
  const answers = `${host} answers${rtt === null ? '' : ` in ${rtt} ms`} (version ${answer.version})`;
  const params = { host, ms: rtt ?? 0, version: answer.version };
  return {
    controlPlane: serviceIsInsecure({ service: deps.service })
      ? diagnosticCheck(
          'control-plane',
          'problem',
          `${answers}, over plain HTTP: anyone on the path reads your account number and token, and can send you to a node of theirs`,
          'use the service’s https URL: netcli init --endpoint https://<host> [--ca-file <ca.pem>]',
          { finding: 'insecure', params, action: { kind: 'setup' } },
        )
      : diagnosticCheck('control-plane', 'ok', answers, null, { finding: 'answers', params }),
    // The Date counts whole seconds: the server's moment is somewhere in that second.
    clock:
      t && Number.isFinite(serverMs)
        ? clockCheck((t.sentAt + t.receivedAt) / 2 - (serverMs + 500))
        : diagnosticCheck(
            'clock',
            'skipped',
            'the control plane sent no Date with its answer',
            null,
            {
              finding: 'no-date',
            },
          ),
    published,
  };
}
