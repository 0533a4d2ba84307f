// The shared contracts of Ferry: types and zod schemas, no I/O.
export * from './values.js';
export * from './problem.js';
export * from './control-api.js';
export * from './control-routes.js';
export { bodyRequired, buildOpenApiDocument, type ValueSets } from './openapi.js';
export * from './tunnel-addresses.js';
export * from './client-config.js';
export * from './api-error.js';
export * from './route-client.js';
export * from './control-client.js';
export { ServerSentEventParser, readServerSentEvents, type ServerSentEvent } from './sse.js';
export * from './local-api.js';
export * from './diagnostics.js';
export * from './redact.js';
export * from './platforms.js';
export * from './platform-probe.js';
export * from './service-tunnels.js';
export * from './wireguard-uapi.js';
