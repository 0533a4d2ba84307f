// The control plane's part in platform/http's protocol: the paths it serves (for 405 and 404),
// its error table, and what it refuses before any route runs (shutting down, the per-address
// rate limit).
import type { Logger } from 'pino';
import { API_PREFIXES, controlRoutes } from '../../contracts/index.js';
import { AllowedMethods, pathsOf } from '../../platform/http/allowed-methods.js';
import type { HttpProtocolOptions } from '../../platform/http/protocol.js';
import type { RequestSignals } from '../../platform/http/request-signals.js';
import { FerryError } from '../domain/errors.js';
import { controlAnswerFor } from './problems.js';
import type { RateLimits } from './rate-limits.js';
import { EXTRA_ROUTES } from './register.js';

/** What a 503 while shutting down tells clients: another instance, or this one restarted. */
const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

export interface ControlProtocolDeps {
  bodyLimit: number;
  signals: RequestSignals;
  limits: RateLimits | undefined;
  logger: Logger;
}

export function controlProtocol(deps: ControlProtocolDeps): HttpProtocolOptions {
  const { signals, limits } = deps;
  return {
    bodyLimit: deps.bodyLimit,
    allowed: new AllowedMethods(API_PREFIXES, [...pathsOf(controlRoutes), ...EXTRA_ROUTES]),
    answerFor: controlAnswerFor(deps.logger),
    closing: () => signals.closing,
    admit: async (request) => {
      if (signals.closing) {
        throw new FerryError('unavailable', 'the service is shutting down; try again shortly', {
          retryAfterSeconds: SHUTDOWN_RETRY_AFTER_SECONDS,
        });
      }
      if (!limits) return;
      const retryAfter = await limits.take('ip', limits.addressKey(request.ip));
      if (retryAfter !== undefined) {
        throw new FerryError('rate-limited', `too many requests; retry in ${retryAfter} s`, {
          retryAfterSeconds: retryAfter,
        });
      }
    },
  };
}
