// netcli init: the control plane's URL and the tunnel protocol (the spec's first command).
import type { Command } from 'commander';
import { protocolName } from '../format/connection.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface InitOptions extends CommonOptions {
  endpoint: string;
  protocol?: string;
}

export function registerInit(program: Command, rt: Runtime): void {
  withCommon(
    program
      .command('init')
      .description('set the control plane’s URL (with or without /api/v1) and the tunnel protocol')
      .requiredOption('--endpoint <url>', 'the control plane, e.g. https://ferry.example/api/v1')
      .option('--protocol <protocol>', 'wireguard or ferry'),
  ).action(async (opts: InitOptions) => {
    const client = await rt.client(opts);
    const result = await client.init({
      body: { endpoint: opts.endpoint, ...(opts.protocol ? { protocol: opts.protocol } : {}) },
    });
    rt.print(opts, result, () => [
      `Service   ${result.config.service ?? 'none'}`,
      `Protocol  ${protocolName(result.config.protocol)}`,
    ]);
    const status = await client.status();
    if (!status.signed_in)
      rt.note(opts, 'Next: netcli account create (a free account), or netcli login <number>');
  });
}
