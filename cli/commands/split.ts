// netcli split list / add --domain D --via direct|tunnel / remove --domain D: the split rules by
// domain, on top of the split by country (a domain's subdomains follow its rule).
import type { Command } from 'commander';
import { SplitDomain, type SplitRule } from '../../contracts/index.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface AddOptions extends CommonOptions {
  domain: string;
  via: string;
}

interface RemoveOptions extends CommonOptions {
  domain: string;
}

const WAY = { direct: 'directly, around the tunnel', tunnel: 'through the tunnel' } as const;

/** The rules as a table, or how to add one. */
export function formatSplitRules(rules: readonly SplitRule[]): string[] {
  if (rules.length === 0)
    return [
      'No split rules: only the split by country decides.',
      'Add one with: netcli split add --domain <domain> --via direct|tunnel',
    ];
  const width = Math.max(...rules.map((r) => r.domain.length));
  return [
    'Split rules (a domain and its subdomains; on top of the split by country):',
    ...rules.map((r) => `  ${r.domain.padEnd(width)}  ${r.via}`),
  ];
}

export function registerSplit(program: Command, rt: Runtime): void {
  const split = program.command('split').description('split rules by domain');

  withCommon(split.command('list', { isDefault: true }))
    .description('the split rules')
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.listSplitRules();
      rt.print(opts, answer, () => formatSplitRules(answer.rules));
    });

  withCommon(split.command('add'))
    .description('send a domain and its subdomains directly or through the tunnel')
    .requiredOption('--domain <domain>', 'the domain, e.g. example.com')
    .requiredOption('--via <way>', 'direct or tunnel')
    .action(async (opts: AddOptions) => {
      const client = await rt.client(opts);
      const rule = await client.addSplitRule({ body: { domain: opts.domain, via: opts.via } });
      rt.print(opts, rule, () => [
        `Split rule added: ${rule.domain} and its subdomains go ${WAY[rule.via]}.`,
      ]);
    });

  withCommon(split.command('remove'))
    .description('remove the split rule of a domain')
    .requiredOption('--domain <domain>', 'the domain of the rule')
    .action(async (opts: RemoveOptions) => {
      const client = await rt.client(opts);
      await client.removeSplitRule({ query: { domain: opts.domain } });
      const domain = SplitDomain.safeParse(opts.domain).data ?? opts.domain;
      rt.print(opts, { removed: domain }, () => [`Split rule for ${domain} removed.`]);
    });
}
