// netcli status [--watch]: the connection now, or followed live until Ctrl-C (through the one
// event follower, contracts/event-follower.ts, which here stops where the stream does).
import type { Command } from 'commander';
import { followEvents, sleepUnlessAborted, type StreamStop } from '../../contracts/index.js';
import { formatStatus, formatWatchLine } from '../format/connection.js';
import { EXIT_NO_ENGINE } from '../errors.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';
import { terminalJson } from '../terminal-text.js';

interface StatusOptions extends CommonOptions {
  watch?: boolean;
}

export function registerStatus(program: Command, rt: Runtime): void {
  const { t } = rt;
  withCommon(program.command('status'))
    .description(t('netcli.status.description'))
    .option('--watch', t('netcli.status.watch'))
    .action(async (opts: StatusOptions) => {
      const client = await rt.client(opts);
      if (!opts.watch) {
        const status = await client.status();
        rt.print(opts, status, () => formatStatus(status, t));
        return;
      }
      const interrupted = rt.io.interrupts();
      /** Ends the watch when writing a line failed (that error is the command's). */
      const failed = new AbortController();
      let failure: { error: unknown } | undefined;
      let last = '';
      let stopped: StreamStop | undefined;
      await followEvents(client, {
        signal: AbortSignal.any([interrupted, failed.signal]),
        wait: sleepUnlessAborted,
        onEvent(event) {
          if (opts.json) {
            rt.io.stdout.write(
              terminalJson({ event: event.event, data: event.data }, { indent: 0 }),
            );
            return;
          }
          const line = formatWatchLine(event, new Date(), t);
          // The same words twice say nothing new (a latency change the line does not show).
          const words = line.slice(9);
          if (words === last) return;
          last = words;
          rt.io.stdout.writeLines([line]);
        },
        // A script that watches wants to know the engine went: no waiting for it to return.
        retry: (stop) => ((stopped = stop), false),
        onHandlerError(error) {
          failure = { error };
          failed.abort();
        },
      });
      if (failure) throw failure.error;
      if (stopped?.state === 'down') throw stopped.error;
      if (stopped?.state === 'ended') {
        rt.io.stderr.write(`netcli: ${t('netcli.status.ended')}\n`);
        rt.exitCode = EXIT_NO_ENGINE;
      }
    });
}
