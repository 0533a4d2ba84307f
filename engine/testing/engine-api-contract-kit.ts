// What the EngineApi contract's cases share (engine-api.contract.ts, engine-api-account.contract.ts):
// the implementation under test, and the refusals they read.
import { expect } from 'vitest';

import type { EngineApi } from '../engine-api.js';
import { FerryError } from '../errors.js';
import { engineRefusal } from './refusal.js';

export interface EngineUnderTest {
  /** Started, with no configuration and no sign-in. */
  engine: EngineApi;
  /** A URL of the control plane as `init --endpoint` takes it (a path like /api/v1 included). */
  endpoint: string;
  /** The service as the configuration then holds it. */
  service: string;
}

/** The code of the refusal `p` ends with (a FerryError's or the control plane's). */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  return (await engineRefusal(p)).code;
}

/** A FerryError config-invalid naming `field` among its errors. */
export async function fieldRefusal(p: Promise<unknown>, field: string): Promise<FerryError> {
  const e = await engineRefusal(p);
  expect(e).toBeInstanceOf(FerryError);
  expect(e.code).toBe('config-invalid');
  expect((e as FerryError).errors?.map((x) => x.field)).toContain(field);
  return e as FerryError;
}

/** The engine told the control plane's URL and signed in as a new account: its number. */
export async function signedIn(t: EngineUnderTest): Promise<string> {
  await t.engine.init({ endpoint: t.endpoint });
  return (await t.engine.createAccount({})).account_number;
}
