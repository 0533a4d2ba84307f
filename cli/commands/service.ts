// netcli service add <name> --cidr C... --domain D... / list / remove <name>: the named
// destination sets that service tunnels carry (shipped ones, and the user's own).
import type { Command } from 'commander';
import { formatDestinationSetAdded, formatDestinationSets } from '../format/services.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface AddOptions extends CommonOptions {
  cidr?: string[];
  domain?: string[];
}

export function registerService(program: Command, rt: Runtime): void {
  const service = program
    .command('service')
    .description('services: networks and domains a service tunnel carries');

  withCommon(service.command('list', { isDefault: true }))
    .description('the services, shipped and your own')
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.listServices();
      rt.print(opts, answer, () => formatDestinationSets(answer));
    });

  withCommon(service.command('add'))
    .description('add a service of your own (at least one --cidr or --domain)')
    .argument('<name>', 'its name: a letter, then letters, digits and dashes')
    .option('--cidr <network...>', 'networks, e.g. 10.20.0.0/16 (an address alone is one host)')
    .option('--domain <name...>', 'domain names, resolved when a tunnel starts')
    .action(async (name: string, opts: AddOptions) => {
      const client = await rt.client(opts);
      const added = await client.addService({
        body: { name, cidrs: opts.cidr ?? [], domains: opts.domain ?? [] },
      });
      rt.print(opts, added, () => formatDestinationSetAdded(added));
    });

  withCommon(service.command('remove'))
    .description('remove a service of your own')
    .argument('<name>', 'the service’s name')
    .action(async (name: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      await client.removeService({ params: { name } });
      rt.print(opts, { removed: name.toLowerCase() }, () => [`Service ${name} removed.`]);
    });
}
