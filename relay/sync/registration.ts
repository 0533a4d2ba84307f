// The relay's registration with the control plane: what it publishes (its keys, its probe port,
// its TLS transport), retried while the control plane is unreachable (it may start later).
import type { Logger } from 'pino';
import {
  ApiError,
  sleepUnlessAborted,
  type ControlClient,
  type RegisterNodeRequest,
} from '../../contracts/index.js';
import type { z } from 'zod';

export type Published = z.input<typeof RegisterNodeRequest>;

/** Registers, retrying an outage or a rate limit; a refused token or body fails at once. */
export async function register(
  client: Pick<ControlClient, 'nodeRegister'>,
  published: Published,
  log: Logger,
  signal: AbortSignal,
) {
  let backoff = 500;
  for (;;) {
    try {
      return await client.nodeRegister({ body: published, signal });
    } catch (e) {
      // A refused token will not get better by retrying; an outage or a rate limit will.
      if (
        e instanceof ApiError &&
        e.status !== undefined &&
        e.status >= 400 &&
        e.status < 500 &&
        e.status !== 429
      )
        throw e;
      if (signal.aborted) throw e;
      log.warn(
        { err: (e as Error).message, retryMs: backoff },
        'control plane unavailable; retrying registration',
      );
      await sleepUnlessAborted(backoff, signal);
      backoff = Math.min(backoff * 2, 10_000);
    }
  }
}
