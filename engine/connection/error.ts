// The error state: a connect failed. The kill switch holds (blocking but the control plane, so
// that the user can connect again) until the user disconnects or connects; without it, the host
// is left as it was before connecting. One nftables transaction on entry.
import { ApiError, type ClientConfig } from '../../contracts/index.js';
import type { EngineContext } from '../engine-context.js';
import { FerryError } from '../errors.js';
import type { EngineFailure } from './machine.js';
import type { ConnectionMemory } from './memory.js';
import { statePolicy } from './policy.js';

/** The engine's failure for what stopped a connect, user-safe. */
export function failureOf(e: unknown): EngineFailure {
  if (e instanceof FerryError) return { code: e.code, message: e.message };
  if (e instanceof ApiError) return { code: String(e.code), message: e.detail };
  return { code: 'internal', message: 'the connection failed unexpectedly' };
}

export async function enterError(
  ctx: EngineContext,
  mem: ConnectionMemory,
  config: ClientConfig,
  error: unknown,
): Promise<void> {
  if (mem.machine.allows('fail')) mem.machine.dispatch({ type: 'fail', error: failureOf(error) });
  const f = ctx.guard.facts;
  await ctx.guard
    .apply(
      statePolicy('error', config, {
        controlPlane: f.controlPlane,
        split: f.split,
        pinned: f.pinned,
      }),
    )
    .catch(() => undefined);
  if (!config.kill_switch) await ctx.dns.restore().catch(() => undefined);
}
