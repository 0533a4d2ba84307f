// Resolves the bearer token of a request to a device, a node or the operator; fails closed.
import type { FastifyRequest } from 'fastify';
import type { Auth } from '../../contracts/index.js';
import { FerryError } from '../domain/errors.js';
import { hashToken, secretEquals } from '../domain/secrets.js';
import type { DeviceAuthSource } from '../domain/device-auth-cache.js';
import type { DeviceAuth } from '../domain/ports/devices.js';
import type { NodeRow, RegionsStore } from '../domain/ports/regions.js';

export interface Authenticator {
  authenticate(kind: Auth, request: FastifyRequest): Promise<DeviceAuth | NodeRow | undefined>;
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const m = header?.match(/^Bearer\s+(\S{16,512})\s*$/i);
  return m?.[1];
}

export function authenticator(deps: {
  /** The token cache in the service; anything that resolves a token hash in tests. */
  devices: DeviceAuthSource;
  regions: Pick<RegionsStore, 'nodeByTokenHash'>;
  adminToken: string | undefined;
}): Authenticator {
  const unauthorized = (what: string) =>
    new FerryError('unauthorized', `a valid ${what} token is required`);
  return {
    async authenticate(kind, request) {
      if (kind === 'none') return undefined;
      const token = bearer(request);
      if (kind === 'admin') {
        // Without a configured admin token, admin routes are closed, never open.
        if (!token || !deps.adminToken || !secretEquals(token, deps.adminToken))
          throw unauthorized('admin');
        return undefined;
      }
      if (!token) throw unauthorized(kind);
      const found =
        kind === 'device'
          ? await deps.devices.authByTokenHash(hashToken(token))
          : await deps.regions.nodeByTokenHash(hashToken(token));
      if (!found) throw unauthorized(kind);
      return found;
    },
  };
}
