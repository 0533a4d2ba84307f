// netcli latency-check [--all] [--count N]: average, jitter and loss to the current node, or
// to every node the plan allows, fastest first, with the method and the number of samples.
import { InvalidArgumentError, type Command } from 'commander';
import type { Translate } from '../../contracts/index.js';
import { formatLatency } from '../format/regions.js';
import { flags, withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface LatencyOptions extends CommonOptions {
  all?: boolean;
  count?: number;
}

function count(t: Translate) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < 1 || n > 100)
      throw new InvalidArgumentError(t('netcli.latency.countInvalid'));
    return n;
  };
}

export function registerLatency(program: Command, rt: Runtime): void {
  const { t } = rt;
  withCommon(program.command('latency-check'))
    .description(t('netcli.latency.description'))
    .option('--all', t('netcli.latency.all'))
    .option(flags('--count', '<n>'), t('netcli.latency.count'), count(t))
    .action(async (opts: LatencyOptions) => {
      const client = await rt.client(opts);
      const answer = await rt.progress(
        opts,
        t('netcli.latency.measuring'),
        client.latencyCheck({
          body: { all: opts.all === true, ...(opts.count ? { count: opts.count } : {}) },
          signal: rt.io.interrupts(),
        }),
      );
      rt.print(opts, answer, () => formatLatency(answer, t));
    });
}
