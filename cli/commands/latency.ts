// netcli latency-check [--all] [--count N]: average, jitter and loss to the current node, or
// to every node the plan allows, fastest first, with the method and the number of samples.
import { InvalidArgumentError, type Command } from 'commander';
import { formatLatency } from '../format/regions.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface LatencyOptions extends CommonOptions {
  all?: boolean;
  count?: number;
}

function count(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 100)
    throw new InvalidArgumentError('a whole number 1-100');
  return n;
}

export function registerLatency(program: Command, rt: Runtime): void {
  withCommon(program.command('latency-check'))
    .description('measure average latency, jitter and packet loss')
    .option('--all', 'every node the plan allows, not only the current one')
    .option('--count <n>', 'probes per node (1-100, default 5)', count)
    .action(async (opts: LatencyOptions) => {
      const client = await rt.client(opts);
      const answer = await rt.progress(
        opts,
        'Measuring',
        client.latencyCheck({
          body: { all: opts.all === true, ...(opts.count ? { count: opts.count } : {}) },
          signal: rt.io.interrupts(),
        }),
      );
      rt.print(opts, answer, () => formatLatency(answer));
    });
}
