// netcli region list / add --area A --strategy S [--name N] / remove <name>: regions and the
// region rules, whose names are accepted wherever a region is.
import type { Command } from 'commander';
import { REGION_STRATEGIES } from '../../contracts/index.js';
import { formatRegions, formatRule } from '../format/regions.js';
import { flags, withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface AddOptions extends CommonOptions {
  area: string;
  strategy?: string;
  name?: string;
}

export function registerRegion(program: Command, rt: Runtime): void {
  const { t } = rt;
  const region = program.command('region').description(t('netcli.region.description'));

  withCommon(region.command('list', { isDefault: true }))
    .description(t('netcli.region.list'))
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.listRegions();
      rt.print(opts, answer, () => formatRegions(answer, t));
    });

  withCommon(region.command('add'))
    .description(t('netcli.region.add'))
    .requiredOption(flags('--area', '<area>'), t('netcli.region.area'))
    .option(
      flags('--strategy', '<strategy>'),
      t('netcli.region.strategy', {
        strategies: REGION_STRATEGIES.join(', '),
        strategy: REGION_STRATEGIES[0],
      }),
    )
    .option(flags('--name', '<name>'), t('netcli.region.name'))
    .action(async (opts: AddOptions) => {
      const client = await rt.client(opts);
      const rule = await client.addRegionRule({
        body: {
          area: opts.area,
          ...(opts.strategy ? { strategy: opts.strategy } : {}),
          ...(opts.name ? { name: opts.name } : {}),
        },
      });
      rt.print(opts, rule, () => formatRule(rule, t));
    });

  withCommon(region.command('remove'))
    .description(t('netcli.region.remove'))
    .argument('<name>', t('netcli.region.ruleName'))
    .action(async (name: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      await client.removeRegionRule({ params: { name } });
      rt.print(opts, { removed: name }, () => [t('netcli.region.removed', { name })]);
    });
}
