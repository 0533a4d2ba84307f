// netcli init: the control plane's URL, how it is trusted, and the tunnel protocol (the spec's
// first command).
import type { Command } from 'commander';
import { protocolName } from '../format/connection.js';
import { readCaFile } from '../read-ca-file.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface InitOptions extends CommonOptions {
  endpoint: string;
  protocol?: string;
  caFile?: string;
  insecure?: boolean;
  serviceKey?: string;
}

export function registerInit(program: Command, rt: Runtime): void {
  withCommon(
    program
      .command('init')
      .description(
        'set the control plane’s URL (https; with or without /api/v1), how it is trusted, and the tunnel protocol',
      )
      .requiredOption('--endpoint <url>', 'the control plane, e.g. https://ferry.example/api/v1')
      .option('--protocol <protocol>', 'wireguard or ferry')
      .option(
        '--ca-file <file>',
        'CA certificates (PEM) that sign the control plane’s certificate, for a service with a private CA',
      )
      .option(
        '--insecure',
        'accept a plain http:// control plane on the network (unsafe: anyone on the path reads your account and can redirect your tunnel)',
      )
      .option(
        '--service-key <base64>',
        'the service’s public key (ferry-server --print-public-key), which its relay list is checked with; without it, the one the service presents on first contact',
      ),
  ).action(async (opts: InitOptions) => {
    const ca = opts.caFile === undefined ? undefined : readCaFile(opts.caFile);
    const client = await rt.client(opts);
    const result = await client.init({
      body: {
        endpoint: opts.endpoint,
        ...(opts.protocol ? { protocol: opts.protocol } : {}),
        ...(ca !== undefined ? { ca } : {}),
        ...(opts.insecure ? { insecure: true } : {}),
        ...(opts.serviceKey !== undefined ? { service_key: opts.serviceKey } : {}),
      },
    });
    rt.print(opts, result, () => [
      `Service   ${result.config.service ?? 'none'}`,
      `Protocol  ${protocolName(result.config.protocol)}`,
    ]);
    const status = await client.status();
    if (status.service_insecure)
      rt.note(
        opts,
        'Warning: plain HTTP: anyone on the path reads your account number and can send you to a node of theirs',
      );
    if (!status.signed_in)
      rt.note(opts, 'Next: netcli account create (a free account), or netcli login <number>');
  });
}
