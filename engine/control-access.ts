// The engine's one control-plane client, for the service the configuration names: built once
// and rebuilt only when the service or how it is trusted changes (not on every call), and what
// the status says of that service (configured, plain HTTP accepted).
import {
  createControlClient,
  INSECURE_SERVICE_MESSAGE,
  serviceIsInsecure,
  type ClientConfig,
  type ControlClient,
  type FetchLike,
} from '../contracts/index.js';
import { FerryError } from './errors.js';

export interface ControlAccessDeps {
  fetch: FetchLike;
  /** The device token of the sign-in (null: none). */
  token: () => Promise<string | undefined>;
  /** Time limit of a call (default 25 s: room for auto API access to try direct, then relays). */
  timeoutMs?: number | undefined;
  /** Tells the transport the CA it trusts for the service besides the system's (null: none). */
  trustServiceCa?: ((pem: string | null) => void) | undefined;
}

export class ControlAccess {
  #client: ControlClient | null = null;
  /** What the client was built for: the service and its trust. */
  #builtFor: string | null = null;
  #configured = false;
  #insecure = false;

  constructor(private readonly deps: ControlAccessDeps) {}

  /** Whether a service is configured (the status's `service_configured`). */
  get configured(): boolean {
    return this.#configured;
  }

  /** Plain HTTP to a control plane on the network, which the user accepted (status says so). */
  get insecure(): boolean {
    return this.#insecure;
  }

  /** Takes in the configuration's service: the status follows it, the transport trusts its CA. */
  note(config: ClientConfig): void {
    this.#configured = config.service !== null;
    this.#insecure = serviceIsInsecure(config) && config.service_insecure;
    const key = JSON.stringify([config.service, config.service_ca, config.service_insecure]);
    if (key === this.#builtFor) return;
    this.#builtFor = key;
    this.#client = null;
    this.deps.trustServiceCa?.(config.service_ca);
  }

  /** The client for the configuration's service; refuses none, and plain HTTP not accepted. */
  client(config: ClientConfig): ControlClient {
    this.note(config);
    if (config.service === null) {
      throw new FerryError(
        'service-not-configured',
        'no service is configured: run netcli init --endpoint <url>',
      );
    }
    // A file written before https was required may name plain http: never used without consent.
    if (serviceIsInsecure(config) && !config.service_insecure)
      throw new FerryError('service-insecure', INSECURE_SERVICE_MESSAGE);
    this.#client ??= createControlClient({
      baseUrl: config.service,
      fetch: this.deps.fetch,
      token: this.deps.token,
      timeoutMs: this.deps.timeoutMs ?? 25_000,
    });
    return this.#client;
  }
}
