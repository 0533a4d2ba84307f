// The engine's error vocabulary: its stable codes and the local API's status of each, shared by
// the engine, the OS adapters of platform/ and every face that shows them.

/**
 * The engine's error codes. Stable: the local API and netcli map them to statuses and hints;
 * add, never rename.
 */
export const ENGINE_ERROR_CODES = [
  /** A setting or value was refused; `errors` names the keys and their allowed values. */
  'config-invalid',
  /** The configuration file exists but is not a valid configuration; it was left as it is. */
  'config-corrupt',
  /** The configuration file could not be read (permissions, I/O). */
  'config-unreadable',
  /** The configuration could not be saved; the previous file is unchanged. */
  'config-write-failed',
  /** The state directory could not be created or is not a directory. */
  'state-dir-unusable',
  /** The state directory is reachable by other users or owned by another one: keys stay out. */
  'state-dir-insecure',
  /** The key file exists but holds no valid keys; it was left as it is. */
  'keys-corrupt',
  /** The key file could not be read (permissions, I/O). */
  'keys-unreadable',
  /** The key file is readable by other users. */
  'keys-insecure',
  /** The key file could not be saved; the previous file is unchanged. */
  'keys-write-failed',
  /** A key rotation was confirmed or abandoned that is not the one under way. */
  'key-rotation-mismatch',
  /** The sign-in could not be saved or removed. */
  'session-write-failed',
  /** The sign-in file could not be read (permissions, I/O). */
  'session-unreadable',
  /** The sign-in file is readable by other users. */
  'session-insecure',
  /** The sign-in file exists but holds no valid sign-in; it was left as it is. */
  'session-corrupt',
  /** The command needs a signed-in device (netcli account create, or netcli login). */
  'not-signed-in',
  /** No control-plane URL is configured (netcli init --endpoint URL). */
  'service-not-configured',
  /** The control plane's URL is plain http on the network, and the user did not accept that. */
  'service-insecure',
  /** A region rule of that name does not exist, or one already does. */
  'rule-not-found',
  'rule-exists',
  /** No split rule for that domain or program (netcli split list shows them). */
  'split-rule-not-found',
  /** The node chosen runs on this very machine: a full tunnel to it would loop. */
  'node-is-local',
  /** The command needs a connection (netcli connect first). */
  'not-connected',
  /** Another connect or disconnect is under way and this one was superseded by it. */
  'superseded',
  /** A system tool (ip, nft) refused a change or could not be run. */
  'os-command-failed',
  /** Not implemented on this platform or in this build yet. */
  'not-supported',
  /** A bug: the engine asked its state machine for a transition the machine does not allow. */
  'illegal-transition',
  /** A tunnel could not be made: its interface name is taken, wireguard-go or the data plane would not start. */
  'tunnel-failed',
  /** The node answered the handshake, but no round trip crossed the tunnel in time. */
  'tunnel-timeout',
  /** The node did not answer the tunnel's handshakes in time (unreachable, key unknown, clock off). */
  'node-unreachable',
  /** The operation was cancelled by its caller (a disconnect while connecting). */
  'cancelled',
  /** No service of that name (netcli service list shows them). */
  'service-not-found',
  /** A service of that name exists already, or the name is a shipped service's. */
  'service-exists',
  /** No service tunnel of that tag runs here (netcli tunnel list shows them). */
  'tunnel-not-found',
  /** A service tunnel of that tag runs here already. */
  'tunnel-exists',
  /** A domain of the service did not resolve: its tunnel would leave that traffic outside. */
  'destinations-unresolved',
  /** The control plane's or a node's host name has no address (and none is known from before). */
  'host-unresolvable',
  /** A --geoip-file line is not `cidr,country` (the message names the file and the line). */
  'geoip-file-invalid',
  /** The --geoip-file cannot be read. */
  'geoip-file-unreadable',
  /** Not an API access method (direct, relays, a socks5:// or http:// proxy URL). */
  'api-access-invalid',
  /** The API access method asked for cannot reach the service (the previous one stays). */
  'api-access-failed',
] as const;

export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[number];

/**
 * The HTTP status the local API answers each engine code with (the control plane's codes keep
 * theirs, ERROR_STATUS). Every code has one: a new engine code cannot be forgotten here.
 */
export const ENGINE_ERROR_STATUS = {
  'config-invalid': 400,
  'config-corrupt': 500,
  'config-unreadable': 500,
  'config-write-failed': 500,
  'state-dir-unusable': 500,
  'state-dir-insecure': 500,
  'keys-corrupt': 500,
  'keys-unreadable': 500,
  'keys-insecure': 500,
  'keys-write-failed': 500,
  'key-rotation-mismatch': 409,
  'session-write-failed': 500,
  'session-unreadable': 500,
  'session-insecure': 500,
  'session-corrupt': 500,
  'not-signed-in': 409,
  'service-not-configured': 409,
  'service-insecure': 409,
  'rule-not-found': 404,
  'split-rule-not-found': 404,
  'rule-exists': 409,
  superseded: 409,
  'os-command-failed': 500,
  'not-supported': 501,
  'illegal-transition': 500,
  'tunnel-failed': 500,
  'tunnel-timeout': 504,
  'node-unreachable': 504,
  'node-is-local': 409,
  cancelled: 409,
  'service-not-found': 404,
  'service-exists': 409,
  'tunnel-not-found': 404,
  'tunnel-exists': 409,
  'destinations-unresolved': 502,
  'host-unresolvable': 502,
  'geoip-file-invalid': 500,
  'geoip-file-unreadable': 500,
  'not-connected': 409,
  'api-access-invalid': 400,
  'api-access-failed': 502,
} as const satisfies Record<EngineErrorCode, number>;

// The one FerryError lives in ferry-error.ts; the engine's adapters import it from here too.
export { FerryError, type FerryErrorOptions } from './ferry-error.js';
