// What netcli says when a command fails: one `netcli: <detail>` line, `hint:` lines that say
// what to do, and the exit code (1 refused, 3 no engine; 2 is commander's, for usage).
import {
  ApiError,
  DEFAULT_ENGINE_SOCKET,
  netcliErrorHints,
  translator,
  wordsFor,
  type FieldError,
  type Translate,
} from '../contracts/index.js';
import { SocketFileError } from '../engine/host/socket-file.js';
import { FerryError } from '../engine/errors.js';

const english = translator('en');

export const EXIT_OK = 0;
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;
export const EXIT_NO_ENGINE = 3;
/** Interrupted (Ctrl-C), as shells count it. */
export const EXIT_INTERRUPTED = 130;

/** A failure's words in a language. */
export type FailureWords = (t: Translate) => { message: string; hints: readonly string[] };

/** A failure netcli itself found, with its hints. */
export class CliError extends Error {
  /** Its words in netcli's language, for a failure found where the language is not known. */
  words?: FailureWords;

  constructor(
    message: string,
    readonly hints: readonly string[] = [],
    readonly exitCode: number = EXIT_REFUSED,
  ) {
    super(message);
    // eslint-disable-next-line i18next/no-literal-string -- the class's name, not words
    this.name = 'CliError';
  }

  /** A failure said in netcli's language once main.ts describes it (English until then). */
  static say(words: FailureWords, exitCode: number = EXIT_REFUSED): CliError {
    const english = words(translator('en'));
    const error = new CliError(english.message, english.hints, exitCode);
    error.words = words;
    return error;
  }
}

export interface Failure {
  message: string;
  hints: string[];
  exitCode: number;
}

/** The command that starts an engine on `socketPath` (the default one needs no option). */
function startEngine(socketPath: string, t: Translate): string {
  const option = socketPath === DEFAULT_ENGINE_SOCKET ? '' : ` --socket ${socketPath}`;
  return t('output.errors.startEngine', { option });
}

/** The hints for a code (contracts/words/errors.ts), none for a code without any. */
function hintsFor(code: string, t: Translate): readonly string[] {
  return wordsFor(netcliErrorHints(t), code) ?? [];
}

/**
 * One hint line per field: what it takes, and the values where the set is closed; none that only
 * says again what the failure's own line (`said`) says.
 */
function fieldHints(
  errors: readonly FieldError[] | undefined,
  said: string,
  t: Translate,
): string[] {
  return (errors ?? [])
    .filter((e) => e.allowed !== undefined || e.message !== said)
    .map((e) => {
      const name = e.field || t('output.errors.theRequest');
      return e.allowed
        ? t('output.errors.oneOf', { name, values: e.allowed.join(', ') })
        : t('output.errors.field', { name, message: e.message });
    });
}

function deviceLimitHints(
  problem: Readonly<Record<string, unknown>> | undefined,
  t: Translate,
): string[] {
  const devices = Array.isArray(problem?.devices) ? problem.devices : [];
  const names = devices
    .map((d) => (d && typeof d === 'object' ? (d as { id?: unknown; name?: unknown }) : {}))
    .filter((d) => typeof d.id === 'string')
    .map((d) => `${String(d.id)} (${typeof d.name === 'string' ? d.name : '?'})`);
  return [
    t('output.errors.revokeDevice'),
    ...(names.length > 0 ? [t('output.errors.accountDevices', { devices: names.join(', ') })] : []),
  ];
}

/** The engine's own refusals (its answer) and those of the control plane it passed on. */
function refusal(e: ApiError, t: Translate): Failure {
  const hints = [...fieldHints(e.errors, e.detail, t)];
  let message = e.detail;
  if (e.code === 'device-limit') hints.push(...deviceLimitHints(e.problem, t));
  else if (e.code === 'unreachable' || e.code === 'timeout') {
    message = t('output.errors.controlPlaneSilent', { detail: e.detail });
    hints.push(t('output.errors.checkService'));
  } else if (e.code === 'rate-limited' && e.retryAfterSeconds !== undefined) {
    hints.push(t('output.errors.retryIn', { count: e.retryAfterSeconds }));
  } else hints.push(...hintsFor(e.code, t));
  return { message, hints, exitCode: EXIT_REFUSED };
}

/** Why the engine did not answer at all, in words, from the connection's error. */
function noAnswer(e: ApiError, socketPath: string, t: Translate): Failure {
  if (e.code === 'timeout') {
    return {
      message: t('output.errors.engineTimeout', { detail: e.detail }),
      hints: [t('output.errors.stillWorking')],
      exitCode: EXIT_REFUSED,
    };
  }
  if (e.code === 'aborted') {
    return { message: t('output.errors.cancelled'), hints: [], exitCode: EXIT_INTERRUPTED };
  }
  if (e.code === 'bad-response') {
    return {
      message: t('output.errors.badResponse', { detail: e.detail }),
      hints: [t('output.errors.sameVersion')],
      exitCode: EXIT_REFUSED,
    };
  }
  if (/\bEACCES\b|\bEPERM\b/.test(e.detail)) {
    return {
      message: t('output.errors.permissionDenied', { socket: socketPath }),
      hints: [t('output.errors.joinGroup')],
      exitCode: EXIT_NO_ENGINE,
    };
  }
  return {
    message: t('output.errors.noEngine', { socket: socketPath }),
    hints: [startEngine(socketPath, t)],
    exitCode: EXIT_NO_ENGINE,
  };
}

export function describeFailure(e: unknown, socketPath: string, t: Translate = english): Failure {
  if (e instanceof CliError) {
    const said = e.words?.(t) ?? e;
    return { message: said.message, hints: [...said.hints], exitCode: e.exitCode };
  }
  if (e instanceof ApiError) {
    // No status: no answer from the engine itself. A status: the engine answered, refusing.
    return e.status === undefined ? noAnswer(e, socketPath, t) : refusal(e, t);
  }
  if (e instanceof SocketFileError) {
    return {
      message: e.message,
      hints: e.code === 'engine-already-running' ? [t('output.errors.engineRunning')] : [],
      exitCode: EXIT_REFUSED,
    };
  }
  if (e instanceof FerryError) {
    return {
      message: e.message,
      hints: [...fieldHints(e.errors, e.message, t), ...hintsFor(e.code, t)],
      exitCode: EXIT_REFUSED,
    };
  }
  const message = e instanceof Error ? e.message : String(e);
  return {
    message: t('output.errors.unexpected', { message }),
    hints: [],
    exitCode: EXIT_REFUSED,
  };
}

export function failureText(f: Failure, t: Translate = english): string {
  const hint = t('output.errors.hint');
  return [`netcli: ${f.message}`, ...f.hints.map((h) => `${hint}: ${h}`)].join('\n') + '\n';
}
