// What netcli says when a command fails: one `netcli: <detail>` line, `hint:` lines that say
// what to do, and the exit code (1 refused, 3 no engine; 2 is commander's, for usage).
import {
  ApiError,
  DEFAULT_ENGINE_SOCKET,
  NETCLI_ERROR_HINTS,
  wordsFor,
  type FieldError,
} from '../contracts/index.js';
import { SocketFileError } from '../engine/host/socket-file.js';
import { FerryError } from '../engine/errors.js';

export const EXIT_OK = 0;
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;
export const EXIT_NO_ENGINE = 3;
/** Interrupted (Ctrl-C), as shells count it. */
export const EXIT_INTERRUPTED = 130;

/** A failure netcli itself found, with its hints. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly hints: readonly string[] = [],
    readonly exitCode: number = EXIT_REFUSED,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface Failure {
  message: string;
  hints: string[];
  exitCode: number;
}

/** The command that starts an engine on `socketPath` (the default one needs no option). */
function startEngine(socketPath: string): string {
  const option = socketPath === DEFAULT_ENGINE_SOCKET ? '' : ` --socket ${socketPath}`;
  return `is the engine running? start it with: sudo netcli daemon${option}`;
}

/** The hints for a code (contracts/words/errors.ts), none for a code without any. */
function hintsFor(code: string): readonly string[] {
  return wordsFor(NETCLI_ERROR_HINTS, code) ?? [];
}

/**
 * One hint line per field: what it takes, and the values where the set is closed; none that only
 * says again what the failure's own line (`said`) says.
 */
function fieldHints(errors: readonly FieldError[] | undefined, said: string): string[] {
  return (errors ?? [])
    .filter((e) => e.allowed !== undefined || e.message !== said)
    .map((e) => {
      const name = e.field || 'the request';
      return e.allowed ? `${name}: one of ${e.allowed.join(', ')}` : `${name}: ${e.message}`;
    });
}

function deviceLimitHints(problem: Readonly<Record<string, unknown>> | undefined): string[] {
  const devices = Array.isArray(problem?.devices) ? problem.devices : [];
  const names = devices
    .map((d) => (d && typeof d === 'object' ? (d as { id?: unknown; name?: unknown }) : {}))
    .filter((d) => typeof d.id === 'string')
    .map((d) => `${String(d.id)} (${typeof d.name === 'string' ? d.name : '?'})`);
  return [
    'revoke a device from one that is signed in: netcli devices revoke <id>',
    ...(names.length > 0 ? [`the account's devices: ${names.join(', ')}`] : []),
  ];
}

/** The engine's own refusals (its answer) and those of the control plane it passed on. */
function refusal(e: ApiError): Failure {
  const hints = [...fieldHints(e.errors, e.detail)];
  let message = e.detail;
  if (e.code === 'device-limit') hints.push(...deviceLimitHints(e.problem));
  else if (e.code === 'unreachable' || e.code === 'timeout') {
    message = `the control plane did not answer (${e.detail})`;
    hints.push('check the service URL (netcli config get service) and the network');
  } else if (e.code === 'rate-limited' && e.retryAfterSeconds !== undefined) {
    hints.push(`try again in ${e.retryAfterSeconds} s`);
  } else hints.push(...hintsFor(e.code));
  return { message, hints, exitCode: EXIT_REFUSED };
}

/** Why the engine did not answer at all, in words, from the connection's error. */
function noAnswer(e: ApiError, socketPath: string): Failure {
  if (e.code === 'timeout') {
    return {
      message: `the engine did not answer in time (${e.detail})`,
      hints: ['it may still be working on it: netcli status'],
      exitCode: EXIT_REFUSED,
    };
  }
  if (e.code === 'aborted') {
    return { message: 'cancelled', hints: [], exitCode: EXIT_INTERRUPTED };
  }
  if (e.code === 'bad-response') {
    return {
      message: `the engine's answer could not be read (${e.detail})`,
      hints: ['are netcli and the engine the same version?'],
      exitCode: EXIT_REFUSED,
    };
  }
  if (/\bEACCES\b|\bEPERM\b/.test(e.detail)) {
    return {
      message: `permission denied on ${socketPath}`,
      hints: [
        'run as root, or join the group ferry: sudo usermod -aG ferry $USER (then log in again)',
      ],
      exitCode: EXIT_NO_ENGINE,
    };
  }
  return {
    message: `no engine answers on ${socketPath}`,
    hints: [startEngine(socketPath)],
    exitCode: EXIT_NO_ENGINE,
  };
}

export function describeFailure(e: unknown, socketPath: string): Failure {
  if (e instanceof CliError)
    return { message: e.message, hints: [...e.hints], exitCode: e.exitCode };
  if (e instanceof ApiError) {
    // No status: no answer from the engine itself. A status: the engine answered, refusing.
    return e.status === undefined ? noAnswer(e, socketPath) : refusal(e);
  }
  if (e instanceof SocketFileError) {
    return {
      message: e.message,
      hints:
        e.code === 'engine-already-running'
          ? ['stop that engine first, or give this one another --socket']
          : [],
      exitCode: EXIT_REFUSED,
    };
  }
  if (e instanceof FerryError) {
    return {
      message: e.message,
      hints: [...fieldHints(e.errors, e.message), ...hintsFor(e.code)],
      exitCode: EXIT_REFUSED,
    };
  }
  const message = e instanceof Error ? e.message : String(e);
  return { message: `unexpected error: ${message}`, hints: [], exitCode: EXIT_REFUSED };
}

export function failureText(f: Failure): string {
  return [`netcli: ${f.message}`, ...f.hints.map((h) => `hint: ${h}`)].join('\n') + '\n';
}
