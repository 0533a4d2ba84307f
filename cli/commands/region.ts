// netcli region list / add --area A --strategy S [--name N] / remove <name>: regions and the
// region rules, whose names are accepted wherever a region is.
import type { Command } from 'commander';
import { REGION_STRATEGIES } from '../../contracts/index.js';
import { formatRegions, formatRule } from '../format/regions.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface AddOptions extends CommonOptions {
  area: string;
  strategy?: string;
  name?: string;
}

export function registerRegion(program: Command, rt: Runtime): void {
  const region = program.command('region').description('regions and region rules');

  withCommon(region.command('list', { isDefault: true }))
    .description('regions (load, latency, whether the plan allows them) and the rules')
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.listRegions();
      rt.print(opts, answer, () => formatRegions(answer));
    });

  withCommon(region.command('add'))
    .description('add a region rule: the best node of an area by a strategy')
    .requiredOption('--area <area>', 'the area (netcli region list)')
    .option(
      '--strategy <strategy>',
      `${REGION_STRATEGIES.join(', ')} (default: ${REGION_STRATEGIES[0]})`,
    )
    .option('--name <name>', 'the rule’s name (default: the area)')
    .action(async (opts: AddOptions) => {
      const client = await rt.client(opts);
      const rule = await client.addRegionRule({
        body: {
          area: opts.area,
          ...(opts.strategy ? { strategy: opts.strategy } : {}),
          ...(opts.name ? { name: opts.name } : {}),
        },
      });
      rt.print(opts, rule, () => formatRule(rule));
    });

  withCommon(region.command('remove'))
    .description('remove a region rule')
    .argument('<name>', 'the rule’s name')
    .action(async (name: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      await client.removeRegionRule({ params: { name } });
      rt.print(opts, { removed: name }, () => [`Region rule ${name} removed.`]);
    });
}
