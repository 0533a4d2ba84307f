// netcli service add <name> --cidr C... --domain D... / list / remove <name>: the named
// destination sets that service tunnels carry (shipped ones, and the user's own).
import type { Command } from 'commander';
import { formatDestinationSetAdded, formatDestinationSets } from '../format/services.js';
import { flags, withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface AddOptions extends CommonOptions {
  cidr?: string[];
  domain?: string[];
}

export function registerService(program: Command, rt: Runtime): void {
  const { t } = rt;
  const service = program.command('service').description(t('netcli.service.description'));

  withCommon(service.command('list', { isDefault: true }))
    .description(t('netcli.service.list'))
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.listServices();
      rt.print(opts, answer, () => formatDestinationSets(answer, t));
    });

  withCommon(service.command('add'))
    .description(t('netcli.service.add'))
    .argument('<name>', t('netcli.service.name'))
    .option(flags('--cidr', '<network...>'), t('netcli.service.cidr'))
    .option(flags('--domain', '<name...>'), t('netcli.service.domain'))
    .action(async (name: string, opts: AddOptions) => {
      const client = await rt.client(opts);
      const added = await client.addService({
        body: { name, cidrs: opts.cidr ?? [], domains: opts.domain ?? [] },
      });
      rt.print(opts, added, () => formatDestinationSetAdded(added, t));
    });

  withCommon(service.command('remove'))
    .description(t('netcli.service.remove'))
    .argument('<name>', t('netcli.service.serviceName'))
    .action(async (name: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      await client.removeService({ params: { name } });
      rt.print(opts, { removed: name.toLowerCase() }, () => [
        t('netcli.service.removed', { name }),
      ]);
    });
}
