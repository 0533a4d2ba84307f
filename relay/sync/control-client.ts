// The relay's client of the control plane's node routes, checked against the contracts.
import type { z } from 'zod';
import {
  HeartbeatRequest,
  HeartbeatResponse,
  PeersResponse,
  RegisterNodeResponse,
} from '../../contracts/index.js';

export class ControlPlaneError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'ControlPlaneError';
  }
}

export class ControlClient {
  private readonly base: string;

  constructor(
    controlUrl: string,
    private readonly nodeToken: string,
  ) {
    // Accept the bare origin or either API prefix.
    this.base = controlUrl.replace(/\/+$/, '').replace(/\/(api\/v1|v1)$/, '') + '/api/v1';
  }

  register(
    keys: { wireguard_public_key: string; ferry_public_key: string | null },
    signal?: AbortSignal,
  ) {
    return this.call('POST', '/node/register', RegisterNodeResponse, keys, 15_000, signal);
  }

  heartbeat(body: z.input<typeof HeartbeatRequest>, signal?: AbortSignal) {
    return this.call('POST', '/node/heartbeat', HeartbeatResponse, body, 15_000, signal);
  }

  peers(after: number, waitSeconds: number, signal?: AbortSignal) {
    return this.call(
      'GET',
      `/node/peers?after=${after}&wait=${waitSeconds}`,
      PeersResponse,
      undefined,
      (waitSeconds + 15) * 1000,
      signal,
    );
  }

  private async call<T extends z.ZodType>(
    method: string,
    path: string,
    schema: T,
    body: unknown,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<z.output<T>> {
    const timeout = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(this.base + path, {
        method,
        headers: {
          authorization: `Bearer ${this.nodeToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (e) {
      throw new ControlPlaneError(
        `control plane unreachable: ${(e as Error).message}`,
        undefined,
        undefined,
      );
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      throw new ControlPlaneError(
        `control plane answered ${res.status} with non-JSON`,
        res.status,
        undefined,
      );
    }
    if (!res.ok) {
      const problem = json as { code?: string; detail?: string } | undefined;
      throw new ControlPlaneError(
        `${method} ${path}: ${res.status} ${problem?.detail ?? ''}`.trim(),
        res.status,
        problem?.code,
      );
    }
    return schema.parse(json);
  }
}
