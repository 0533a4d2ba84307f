// The transport autopilot's judgement of a connect's attempts: which failures are the network's
// (worth the next transport), what each one looks like (UDP unanswered, TCP silenced, ...), and
// why the tunnel ended up on its transport, in codes and words for the status.
import {
  FerryError,
  transportReasonText,
  type Blockage,
  type Transport,
  type TransportReason,
} from '../../contracts/index.js';
import type { TransportAttempt, TransportPlan } from './plan.js';

/** An attempt that did not bring the tunnel up, and why. */
export interface FailedAttempt {
  attempt: TransportAttempt;
  error: unknown;
}

/**
 * Whether a failure is the path's (the node never answered, or answered and nothing crossed):
 * the next transport may get through. Local failures (a refused setting, the OS, a cancel) are
 * not, and end the connect.
 */
export function isPathFailure(error: unknown): boolean {
  return (
    error instanceof FerryError &&
    (error.code === 'node-unreachable' || error.code === 'tunnel-timeout')
  );
}

/** What the data plane saw of the failed attempt's last TCP or TLS connection, if it said. */
function streamOutcome(error: unknown): string | null {
  const o = error instanceof FerryError ? error.extra?.['stream_outcome'] : undefined;
  return typeof o === 'string' ? o : null;
}

/** What a failed attempt looks like from here. */
export function blockageOf(failed: FailedAttempt): Blockage {
  const { attempt, error } = failed;
  if (!isPathFailure(error)) return 'failed';
  const answered = error instanceof FerryError && error.code === 'tunnel-timeout';
  if (attempt.transport === 'udp') return answered ? 'udp-throttled' : 'udp-unanswered';
  // A node that answered a stream transport's handshake, then carried nothing: stalled.
  if (answered) return 'tcp-stalled';
  switch (streamOutcome(error)) {
    case 'connect-timeout':
      return 'tcp-unanswered';
    case 'refused':
      return 'tcp-reset';
    case 'reset':
      // A reset right after the hello: a censor that judged the hello.
      return attempt.transport === 'tls' ? 'tls-reset' : 'tcp-reset';
    case 'answered':
      // The TLS flight came back but no Ferry handshake: not the node (a stranger's answer).
      return 'failed';
    default:
      return 'tcp-silenced';
  }
}

/** Why the tunnel runs over `transport`, after the attempts that failed before it. */
export function transportReason(
  plan: TransportPlan,
  transport: Transport,
  failed: readonly FailedAttempt[],
): TransportReason {
  const blocked = [
    ...plan.seen,
    ...failed.map((f) => ({ transport: f.attempt.transport, blockage: blockageOf(f) })),
  ];
  const code: TransportReason['code'] =
    plan.by === 'setting'
      ? 'chosen'
      : blocked.length > 0
        ? 'fallback'
        : plan.retried === transport
          ? 'retried'
          : plan.attempts.length === 1 && plan.attempts[0]?.race === undefined
            ? 'only-offered'
            : plan.remembered === transport
              ? 'remembered'
              : 'first-choice';
  return { code, blocked, message: transportReasonText(transport, code, blocked) };
}
