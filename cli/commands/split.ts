// netcli split list / add --domain D|--app PATH --via direct|tunnel / remove --domain D|--app PATH,
// and netcli exec --via direct|tunnel -- CMD ARGS: the split rules by domain (a domain's
// subdomains follow its rule) and by program (what a program starts follows it), on top of the
// split by country.
import type { Command } from 'commander';
import {
  SplitAppPath,
  SplitDomain,
  isDomainRule,
  type SplitRule,
  type SplitRuleRequest,
  type Translate,
} from '../../contracts/index.js';
import { english } from '../format/words.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { flags, withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface TargetOptions extends CommonOptions {
  domain?: string;
  app?: string;
}

interface AddOptions extends TargetOptions {
  via: string;
}

/** What `exec` exits with when the program is not there (as a shell does). */
export const EXIT_NO_PROGRAM = 127;

const way = (via: 'direct' | 'tunnel', t: Translate) =>
  via === 'direct' ? t('netcli.split.direct') : t('netcli.split.tunnel');

/** The rules as a table, or how to add one. */
export function formatSplitRules(rules: readonly SplitRule[], t: Translate = english): string[] {
  if (rules.length === 0) return [t('netcli.split.none'), t('netcli.split.addOne')];
  const target = (r: SplitRule) => (isDomainRule(r) ? r.domain : r.app);
  const width = Math.max(...rules.map((r) => target(r).length));
  return [
    t('netcli.split.rules'),
    ...rules.map(
      (r) =>
        `  ${target(r).padEnd(width)}  ${r.via}${isDomainRule(r) ? '' : `  ${t('netcli.split.program')}`}`,
    ),
  ];
}

/** The one target a command names: --domain or --app, never both, never neither. */
function targetOf(opts: TargetOptions, t: Translate): { domain: string } | { app: string } {
  if ((opts.domain === undefined) === (opts.app === undefined))
    throw new CliError(t('netcli.split.either'), [], EXIT_USAGE);
  return opts.domain !== undefined ? { domain: opts.domain } : { app: opts.app! };
}

/** A target in the words the engine keeps it in (lower case domain, no `*.`). */
function shown(target: { domain: string } | { app: string }): string {
  return 'domain' in target
    ? (SplitDomain.safeParse(target.domain).data ?? target.domain)
    : (SplitAppPath.safeParse(target.app).data ?? target.app);
}

export function registerSplit(program: Command, rt: Runtime): void {
  const { t } = rt;
  const split = program.command('split').description(t('netcli.split.description'));

  withCommon(split.command('list', { isDefault: true }))
    .description(t('netcli.split.list'))
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.listSplitRules();
      rt.print(opts, answer, () => formatSplitRules(answer.rules, t));
    });

  withCommon(split.command('add'))
    .description(t('netcli.split.add'))
    .option(flags('--domain', '<domain>'), t('netcli.split.domain'))
    .option(flags('--app', '<path>'), t('netcli.split.app'))
    .requiredOption(flags('--via', '<way>'), t('netcli.split.via'))
    .action(async (opts: AddOptions) => {
      const client = await rt.client(opts);
      const body = { ...targetOf(opts, t), via: opts.via } as SplitRuleRequest;
      const rule = await client.addSplitRule({ body });
      rt.print(opts, rule, () => [
        isDomainRule(rule)
          ? t('netcli.split.addedDomain', { domain: rule.domain, way: way(rule.via, t) })
          : t('netcli.split.addedApp', { app: rule.app, way: way(rule.via, t) }),
      ]);
    });

  withCommon(split.command('remove'))
    .description(t('netcli.split.remove'))
    .option(flags('--domain', '<domain>'), t('netcli.split.ruleDomain'))
    .option(flags('--app', '<path>'), t('netcli.split.ruleApp'))
    .action(async (opts: TargetOptions) => {
      const target = targetOf(opts, t);
      const client = await rt.client(opts);
      await client.removeSplitRule({ query: target });
      rt.print(opts, { removed: shown(target) }, () => [
        t('netcli.split.removed', { target: shown(target) }),
      ]);
    });

  program
    .command('exec')
    .description(t('netcli.split.exec'))
    .requiredOption(flags('--via', '<way>'), t('netcli.split.via'))
    .option(flags('--socket', '<path>'), t('netcli.split.socket'))
    .argument('<command>', t('netcli.split.command'))
    .argument('[args...]', t('netcli.split.args'))
    .passThroughOptions()
    .action(async (command: string, args: string[], opts: { via: string; socket?: string }) => {
      const client = await rt.client(opts);
      // This very process goes on the way first: the program, its child, inherits it.
      await client.splitExec({ body: { pid: rt.io.pid, via: opts.via } });
      try {
        rt.exitCode = await rt.io.runProgram(command, args);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT')
          throw new CliError(t('netcli.split.noProgram', { command }), [], EXIT_NO_PROGRAM);
        throw e;
      }
    });
}
