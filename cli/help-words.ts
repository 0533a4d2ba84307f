// Commander's own words in netcli's language: the help's titles (Usage:, Options:, ...), the
// --help option and help command, a default's note, and its usage errors. Command and option
// names stay as they are. In English commander's words are left exactly as commander writes them.
import type { Argument, Command, Help, Option } from 'commander';
import type { CatalogKey, Language, Translate } from '../contracts/index.js';

/** Commander's help titles, by the English it writes. */
const TITLES: Readonly<Record<string, CatalogKey>> = {
  'Usage:': 'netcli.help.usage',
  'Arguments:': 'netcli.help.arguments',
  'Options:': 'netcli.help.options',
  'Global Options:': 'netcli.help.globalOptions',
  'Commands:': 'netcli.help.commands',
};

/**
 * Sets commander's words on `program` in the language of `t`; the commands made after this copy
 * them (commander's inherited settings).
 */
export function localizeCommander(program: Command, t: Translate): void {
  // eslint-disable-next-line i18next/no-literal-string -- commander's flags, not words
  program.helpOption('-h, --help', t('netcli.help.help'));
  // eslint-disable-next-line i18next/no-literal-string -- the command's syntax, not words
  program.helpCommand('help [command]', t('netcli.help.helpCommand'));
  program.configureHelp({
    styleTitle: (title: string) => {
      const key = TITLES[title];
      return key ? t(key) : title;
    },
    argumentDescription(this: Help, argument: Argument): string {
      // The choices, as commander lists them, after words of netcli's language.
      if (!argument.argChoices) return argument.description;
      const choices = argument.argChoices.map((c) => JSON.stringify(c)).join(', ');
      return `${argument.description} (${t('netcli.help.choices', { choices })})`;
    },
    optionDescription(this: Help, option: Option): string {
      // netcli's options show a default only in their own words: commander's `(default: x)`
      // in netcli's language when a default value is set.
      const shown = option.defaultValue !== undefined && (option.required || option.optional);
      if (!shown) return option.description;
      const value = option.defaultValueDescription ?? JSON.stringify(option.defaultValue);
      return `${option.description} (${t('netcli.help.default', { value })})`;
    },
  });
}

/** Commander's usage errors (`error: unknown option '--x'`), each in netcli's words. */
const USAGE_ERRORS: readonly {
  pattern: RegExp;
  words: (m: RegExpExecArray, t: Translate) => string;
}[] = [
  {
    pattern: /^error: unknown option '(.*)'/,
    words: (m, t) => t('netcli.usage.unknownOption', { option: m[1] }),
  },
  {
    pattern: /^error: unknown command '(.*)'/,
    words: (m, t) => t('netcli.usage.unknownCommand', { command: m[1] }),
  },
  {
    pattern: /^error: missing required argument '(.*)'/,
    words: (m, t) => t('netcli.usage.missingArgument', { argument: m[1] }),
  },
  {
    pattern: /^error: option '(.*)' argument missing/,
    words: (m, t) => t('netcli.usage.optionArgumentMissing', { option: m[1] }),
  },
  {
    pattern: /^error: required option '(.*)' not specified/,
    words: (m, t) => t('netcli.usage.requiredOption', { option: m[1] }),
  },
  {
    pattern: /^error: too many arguments.*Expected (\d+) arguments? but got (\d+)\./,
    words: (m, t) =>
      t('netcli.usage.tooManyArguments', { expected: Number(m[1]), received: Number(m[2]) }),
  },
  {
    pattern: /^error: option '(.*)' argument '(.*)' is invalid\. ?(.*)/,
    words: (m, t) => t('netcli.usage.invalidOption', { option: m[1], value: m[2], reason: m[3] }),
  },
  {
    pattern: /^error: command-argument value '(.*)' is invalid for argument '(.*)'\. ?(.*)/,
    words: (m, t) =>
      t('netcli.usage.invalidArgument', { value: m[1], argument: m[2], reason: m[3] }),
  },
];

/** Commander's suggestion after an unknown name. */
const SUGGESTION = /\(Did you mean (one of )?(.*)\?\)/;

/**
 * A usage error of commander in netcli's language (`error: ` kept in front: main.ts makes it
 * `netcli: `); English, and an error this does not know, as commander wrote it.
 */
export function translateUsageError(text: string, language: Language, t: Translate): string {
  if (language === 'en') return text;
  const [first = '', ...rest] = text.split('\n');
  let line = first;
  for (const { pattern, words } of USAGE_ERRORS) {
    const m = pattern.exec(first);
    if (m) {
      line = `error: ${words(m, t)}`;
      break;
    }
  }
  const others = rest.map((l) => {
    const m = SUGGESTION.exec(l);
    if (!m) return l;
    return m[1]
      ? t('netcli.usage.didYouMeanOneOf', { words: m[2] })
      : t('netcli.usage.didYouMean', { words: m[2] });
  });
  return [line, ...others].join('\n');
}
