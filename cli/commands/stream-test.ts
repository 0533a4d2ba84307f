// netcli stream-test --platform <p>: a streaming platform asked through the tunnel, with a
// verdict (and a fix when it is not OK). Exits 1 when the verdict is not OK, for scripts.
import type { Command } from 'commander';
import { formatStreamTest } from '../format/stream-test.js';
import { EXIT_REFUSED } from '../errors.js';
import { flags, withCommon, type CommonOptions, type Runtime } from '../runtime.js';

interface StreamTestOptions extends CommonOptions {
  platform: string;
}

export function registerStreamTest(program: Command, rt: Runtime): void {
  const { t } = rt;
  withCommon(program.command('stream-test'))
    .description(t('netcli.streamTest.description'))
    .requiredOption(flags('--platform', '<platform>'), t('netcli.streamTest.platform'))
    .action(async (opts: StreamTestOptions) => {
      const client = await rt.client(opts);
      const result = await rt.progress(
        opts,
        t('netcli.streamTest.asking', { platform: opts.platform }),
        client.streamTest({
          body: { platform: opts.platform },
          signal: rt.io.interrupts(),
        }),
      );
      rt.print(opts, result, () => formatStreamTest(result, t));
      if (result.verdict !== 'ok') rt.exitCode = EXIT_REFUSED;
    });
}
