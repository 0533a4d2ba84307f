// Every word a person reads that more than one face shows, in one catalog keyed by typed codes
// (states, notices, settings effects, refusals): the one place a translation will replace.
export * from './states.js';
export * from './notices.js';
export * from './effects.js';
export * from './errors.js';
export * from './transports.js';
