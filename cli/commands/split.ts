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
} from '../../contracts/index.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface TargetOptions extends CommonOptions {
  domain?: string;
  app?: string;
}

interface AddOptions extends TargetOptions {
  via: string;
}

/** What `exec` exits with when the program is not there (as a shell does). */
export const EXIT_NO_PROGRAM = 127;

const WAY = { direct: 'directly, around the tunnel', tunnel: 'through the tunnel only' } as const;

/** The rules as a table, or how to add one. */
export function formatSplitRules(rules: readonly SplitRule[]): string[] {
  if (rules.length === 0)
    return [
      'No split rules: only the split by country decides.',
      'Add one with: netcli split add --domain <domain>|--app <path> --via direct|tunnel',
    ];
  const target = (r: SplitRule) => (isDomainRule(r) ? r.domain : r.app);
  const width = Math.max(...rules.map((r) => target(r).length));
  return [
    'Split rules (on top of the split by country):',
    ...rules.map(
      (r) => `  ${target(r).padEnd(width)}  ${r.via}${isDomainRule(r) ? '' : '  (program)'}`,
    ),
  ];
}

/** The one target a command names: --domain or --app, never both, never neither. */
function targetOf(opts: TargetOptions): { domain: string } | { app: string } {
  if ((opts.domain === undefined) === (opts.app === undefined))
    throw new CliError('name either --domain or --app', [], EXIT_USAGE);
  return opts.domain !== undefined ? { domain: opts.domain } : { app: opts.app! };
}

/** A target in the words the engine keeps it in (lower case domain, no `*.`). */
function shown(target: { domain: string } | { app: string }): string {
  return 'domain' in target
    ? (SplitDomain.safeParse(target.domain).data ?? target.domain)
    : (SplitAppPath.safeParse(target.app).data ?? target.app);
}

export function registerSplit(program: Command, rt: Runtime): void {
  const split = program.command('split').description('split rules by domain and by program');

  withCommon(split.command('list', { isDefault: true }))
    .description('the split rules')
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.listSplitRules();
      rt.print(opts, answer, () => formatSplitRules(answer.rules));
    });

  withCommon(split.command('add'))
    .description('send a domain and its subdomains, or a program, one way only')
    .option('--domain <domain>', 'a domain, e.g. example.com')
    .option('--app <path>', 'a program’s path, e.g. /usr/bin/firefox')
    .requiredOption('--via <way>', 'direct or tunnel')
    .action(async (opts: AddOptions) => {
      const client = await rt.client(opts);
      const body = { ...targetOf(opts), via: opts.via } as SplitRuleRequest;
      const rule = await client.addSplitRule({ body });
      rt.print(opts, rule, () => [
        isDomainRule(rule)
          ? `Split rule added: ${rule.domain} and its subdomains go ${WAY[rule.via]}.`
          : `Split rule added: ${rule.app} (and what it starts) goes ${WAY[rule.via]}.`,
      ]);
    });

  withCommon(split.command('remove'))
    .description('remove the split rule of a domain or a program')
    .option('--domain <domain>', 'the domain of the rule')
    .option('--app <path>', 'the program of the rule')
    .action(async (opts: TargetOptions) => {
      const target = targetOf(opts);
      const client = await rt.client(opts);
      await client.removeSplitRule({ query: target });
      rt.print(opts, { removed: shown(target) }, () => [
        `Split rule for ${shown(target)} removed.`,
      ]);
    });

  program
    .command('exec')
    .description('run a program whose traffic goes one way only (direct, or the tunnel only)')
    .requiredOption('--via <way>', 'direct or tunnel')
    .option('--socket <path>', 'the engine’s socket')
    .argument('<command>', 'the program')
    .argument('[args...]', 'its arguments (after --)')
    .passThroughOptions()
    .action(async (command: string, args: string[], opts: { via: string; socket?: string }) => {
      const client = await rt.client(opts);
      // This very process goes on the way first: the program, its child, inherits it.
      await client.splitExec({ body: { pid: rt.io.pid, via: opts.via } });
      try {
        rt.exitCode = await rt.io.runProgram(command, args);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT')
          throw new CliError(`no program ${command}`, [], EXIT_NO_PROGRAM);
        throw e;
      }
    });
}
