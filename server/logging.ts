// The service's logger: pino JSON lines with a component field; never request details,
// addresses, tokens or keys (the no-logs rule).
import pino, { type Logger } from 'pino';

export function createLogger(
  component: string,
  level = process.env.FERRY_LOG_LEVEL ?? 'info',
): Logger {
  return pino({
    level,
    base: { component },
    redact: {
      paths: ['*.token', '*.authorization', '*.password', '*.ip', '*.remoteAddress'],
      remove: true,
    },
  });
}
