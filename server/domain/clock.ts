// The clock seam: real time in the service, a settable clock in tests.
export interface Clock {
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

/** The quota period (calendar month, UTC) that a moment falls in. */
export function periodOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}
