// Every word a person reads that more than one face shows, keyed by typed codes (states, notices,
// settings effects, refusals, transports, the diagnostics tally). The words themselves are the
// catalogs' (contracts/i18n/catalogs/<language>.json): these modules read English's.
export * from './states.js';
export * from './notices.js';
export * from './effects.js';
export * from './errors.js';
export * from './transports.js';
export * from './diagnostics.js';
