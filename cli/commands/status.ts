// netcli status [--watch]: the connection now, or followed live until Ctrl-C.
import type { Command } from 'commander';
import { formatStatus, formatWatchLine } from '../format/connection.js';
import { EXIT_NO_ENGINE } from '../errors.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';
import { terminalJson } from '../terminal-text.js';

interface StatusOptions extends CommonOptions {
  watch?: boolean;
}

export function registerStatus(program: Command, rt: Runtime): void {
  withCommon(program.command('status'))
    .description('the connection: state, region, node, latency')
    .option('--watch', 'follow every change (one line each; JSON lines with --json) until Ctrl-C')
    .action(async (opts: StatusOptions) => {
      const client = await rt.client(opts);
      if (!opts.watch) {
        const status = await client.status();
        rt.print(opts, status, () => formatStatus(status));
        return;
      }
      const interrupted = rt.io.interrupts();
      const stream = await client.events({ signal: interrupted });
      let last = '';
      for await (const event of stream) {
        if (opts.json) {
          rt.io.stdout.write(terminalJson({ event: event.event, data: event.data }, { indent: 0 }));
          continue;
        }
        const line = formatWatchLine(event, new Date());
        // The same words twice say nothing new (a latency change the line does not show).
        const words = line.slice(9);
        if (words === last) continue;
        last = words;
        rt.io.stdout.writeLines([line]);
      }
      if (!interrupted.aborted) {
        rt.io.stderr.write('netcli: the engine ended the stream (it stopped)\n');
        rt.exitCode = EXIT_NO_ENGINE;
      }
    });
}
