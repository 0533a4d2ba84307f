// For tests: the refusal a call ends with. The FerryError it rejects with (or, for calls the
// control plane may refuse, that ApiError too); resolving or anything else fails the test.
import { ApiError } from '../../contracts/index.js';
import { FerryError } from '../errors.js';

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a refusal, but the call succeeded');
    },
    (e: unknown) => e,
  );
}

/** The FerryError `p` rejects with. */
export async function refusal(p: Promise<unknown>): Promise<FerryError> {
  const e = await rejection(p);
  if (e instanceof FerryError) return e;
  throw new Error(`expected a FerryError, got ${String(e)}`);
}

/** The FerryError or the control plane's ApiError `p` rejects with. */
export async function engineRefusal(p: Promise<unknown>): Promise<FerryError | ApiError> {
  const e = await rejection(p);
  if (e instanceof FerryError || e instanceof ApiError) return e;
  throw new Error(`expected a refusal, got ${String(e)}`);
}
