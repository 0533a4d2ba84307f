// netcli init: the control plane's URL, how it is trusted, and the tunnel protocol (the spec's
// first command).
import type { Command } from 'commander';
import { protocolName } from '../format/connection.js';
import { readCaFile } from '../read-ca-file.js';
import { flags, withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface InitOptions extends CommonOptions {
  endpoint: string;
  protocol?: string;
  caFile?: string;
  insecure?: boolean;
  serviceKey?: string;
}

export function registerInit(program: Command, rt: Runtime): void {
  const { t } = rt;
  withCommon(
    program
      .command('init')
      .description(t('netcli.init.description'))
      .requiredOption(flags('--endpoint', '<url>'), t('netcli.init.endpoint'))
      .option(flags('--protocol', '<protocol>'), t('netcli.init.protocolOption'))
      .option(flags('--ca-file', '<file>'), t('netcli.init.caFile'))
      .option('--insecure', t('netcli.init.insecure'))
      .option(flags('--service-key', '<base64>'), t('netcli.init.serviceKey')),
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
      t('netcli.init.service', { service: result.config.service ?? t('netcli.init.none') }),
      t('netcli.init.protocol', { protocol: protocolName(result.config.protocol, t) }),
    ]);
    const status = await client.status();
    if (status.service_insecure) rt.note(opts, t('netcli.init.insecureWarning'));
    if (!status.signed_in) rt.note(opts, t('netcli.init.next'));
  });
}
