// netcli config list / get <key> / set <key> <value>: the client configuration; a change to
// a live tunnel says what it did (reconnected, applied in place, saved for the next connect).
import type { Command } from 'commander';
import { CONFIG_KEYS, parseConfigKey } from '../../contracts/index.js';
import { CliError } from '../errors.js';
import { readCaFile } from '../read-ca-file.js';
import { configValueText, formatConfig, formatConfigChange } from '../format/settings.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

export function registerConfig(program: Command, rt: Runtime): void {
  const config = program.command('config').description('the client configuration');

  withCommon(config.command('list', { isDefault: true }))
    .description('every setting and its value')
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.getConfig();
      rt.print(opts, answer, () => formatConfig(answer));
    });

  withCommon(config.command('get'))
    .description('one setting’s value')
    .argument('<key>', `one of ${CONFIG_KEYS.join(', ')}`)
    .action(async (typed: string, opts: CommonOptions) => {
      const key = parseConfigKey(typed);
      if (!key) {
        throw new CliError(`unknown setting ${JSON.stringify(typed)}`, [
          `the settings are ${CONFIG_KEYS.join(', ')}`,
        ]);
      }
      const client = await rt.client(opts);
      const answer = await client.getConfig();
      rt.print(opts, { [key]: answer[key] }, () => [configValueText(answer[key])]);
    });

  withCommon(config.command('set'))
    .description('change one setting (a live tunnel follows)')
    .argument('<key>', `one of ${CONFIG_KEYS.join(', ')}`)
    .argument('<value>', 'as typed: WireGuard, on, 9.9.9.9, none...')
    .action(async (key: string, value: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      const before = await client.getConfig();
      // service_ca names a file: read here, as the user, and its certificates sent.
      const caFile =
        parseConfigKey(key) === 'service_ca' && !['none', 'system'].includes(value.toLowerCase());
      const result = await rt.progress(
        opts,
        'Applying',
        caFile
          ? client.patchConfig({ body: { service_ca: readCaFile(value) } })
          : client.setConfigKey({ params: { key }, body: { value } }),
      );
      rt.print(opts, result, () => formatConfigChange(before, result));
    });
}
