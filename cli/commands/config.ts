// netcli config list / get <key> / set <key> <value>: the client configuration; a change to
// a live tunnel says what it did (reconnected, applied in place, saved for the next connect).
import type { Command } from 'commander';
import { CONFIG_KEYS, parseConfigKey } from '../../contracts/index.js';
import { CliError } from '../errors.js';
import { readCaFile } from '../read-ca-file.js';
import { configValueText, formatConfig, formatConfigChange } from '../format/settings.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

export function registerConfig(program: Command, rt: Runtime): void {
  const { t } = rt;
  const config = program.command('config').description(t('netcli.config.description'));

  withCommon(config.command('list', { isDefault: true }))
    .description(t('netcli.config.list'))
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.getConfig();
      rt.print(opts, answer, () => formatConfig(answer, t));
    });

  withCommon(config.command('get'))
    .description(t('netcli.config.get'))
    .argument('<key>', t('netcli.config.key', { keys: CONFIG_KEYS.join(', ') }))
    .action(async (typed: string, opts: CommonOptions) => {
      const key = parseConfigKey(typed);
      if (!key) {
        throw new CliError(t('netcli.config.unknown', { key: JSON.stringify(typed) }), [
          t('netcli.config.settings', { keys: CONFIG_KEYS.join(', ') }),
        ]);
      }
      const client = await rt.client(opts);
      const answer = await client.getConfig();
      rt.print(opts, { [key]: answer[key] }, () => [configValueText(answer[key])]);
    });

  withCommon(config.command('set'))
    .description(t('netcli.config.set'))
    .argument('<key>', t('netcli.config.key', { keys: CONFIG_KEYS.join(', ') }))
    .argument('<value>', t('netcli.config.value'))
    .action(async (key: string, value: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      const before = await client.getConfig();
      // service_ca names a file: read here, as the user, and its certificates sent.
      const caFile =
        parseConfigKey(key) === 'service_ca' && !['none', 'system'].includes(value.toLowerCase());
      const result = await rt.progress(
        opts,
        t('netcli.config.applying'),
        caFile
          ? client.patchConfig({ body: { service_ca: readCaFile(value) } })
          : client.setConfigKey({ params: { key }, body: { value } }),
      );
      rt.print(opts, result, () => formatConfigChange(before, result, t));
    });
}
