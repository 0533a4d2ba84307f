// The language netcli speaks: the `language` setting when it names one, else the system's
// (LC_ALL > LC_MESSAGES > LANG, GNU's LANGUAGE). The setting lives in the engine: it is read only
// from an engine that already answers on the socket (quickly), never by starting one.
import {
  createLocalClient,
  faceLanguage,
  isLanguage,
  systemLanguage,
  type Language,
  type LanguageSetting,
  type LocaleEnvironment,
} from '../contracts/index.js';
import { probeSocket } from '../engine/host/socket-file.js';
import { createUnixFetch } from '../engine/host/unix-fetch.js';
import { chooseSocket } from './engine-connection.js';

/** How long netcli waits for the engine's configuration before it speaks the system's language. */
export const LANGUAGE_WAIT_MS = 500;

/** netcli's language: the setting's, or (auto, or no engine to ask) the system's. */
export function netcliLanguage(
  setting: LanguageSetting | undefined,
  env: LocaleEnvironment,
): Language {
  return faceLanguage(setting ?? 'auto', systemLanguage(env));
}

/** The socket the arguments name (`--socket <path>` or `--socket=<path>`), if any. */
export function socketInArguments(argv: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--socket' && i + 1 < argv.length) found = argv[++i];
    else if (arg.startsWith('--socket=')) found = arg.slice('--socket='.length);
  }
  return found;
}

/**
 * The `language` setting of an engine that already answers on `socketPath`, or undefined (no
 * engine, no answer within `waitMs`, or an answer without one). Never starts an engine.
 */
export async function engineLanguageSetting(
  socketPath: string,
  waitMs = LANGUAGE_WAIT_MS,
): Promise<LanguageSetting | undefined> {
  if ((await probeSocket(socketPath)) !== 'live') return undefined;
  const fetch = createUnixFetch(socketPath);
  try {
    const config = await createLocalClient({ fetch }).getConfig({ timeoutMs: waitMs });
    const setting: unknown = config.language;
    return setting === 'auto' || isLanguage(setting) ? setting : undefined;
  } catch {
    return undefined;
  } finally {
    await fetch.close();
  }
}

/** The language of this run of netcli, from its arguments' (or the environment's) socket. */
export async function resolveNetcliLanguage(
  argv: readonly string[],
  env: LocaleEnvironment,
): Promise<Language> {
  const socket = chooseSocket(socketInArguments(argv), env);
  return netcliLanguage(await engineLanguageSetting(socket.path), env);
}
