// netcli diagnose [--export FILE]: every check with a verdict and a fix, exit 1 when any is a
// problem. An engine that does not answer is the first finding, not an error: the report says so
// (every other check skipped, they all ask the engine). The export is the same report with every
// address, key, token and account number redacted, and the service's host name, written 0600.
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import {
  ApiError,
  DEFAULT_ENGINE_SOCKET,
  engineDownReport,
  localRoutes,
  type DiagnosticsReport,
  type LocalClient,
} from '../../contracts/index.js';
import { CliError, EXIT_REFUSED } from '../errors.js';
import { formatDiagnostics } from '../format/diagnose.js';
import { redactReport, type RedactContext } from '../redact.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

/** How long netcli waits for the report: the route's own limit (the local API's route table). */
const DIAGNOSE_TIMEOUT_MS = localRoutes.diagnose.timeoutMs;

interface DiagnoseOptions extends CommonOptions {
  export?: string;
}

/** What the report says when the engine did not answer (null: it did, or the user cancelled). */
function engineDown(e: unknown, socketPath: string): { summary: string; fix: string } | null {
  if (!(e instanceof ApiError) || e.status !== undefined) return null;
  if (e.code === 'aborted' || e.code === 'bad-response') return null;
  const option = socketPath === DEFAULT_ENGINE_SOCKET ? '' : ` --socket ${socketPath}`;
  if (e.code === 'timeout')
    return {
      summary: `the engine on ${socketPath} did not answer within ${DIAGNOSE_TIMEOUT_MS / 1000} s`,
      fix: `restart it: stop netcli daemon, then sudo netcli daemon${option}`,
    };
  if (/\bEACCES\b|\bEPERM\b/.test(e.detail))
    return {
      summary: `permission denied on ${socketPath}`,
      fix: 'run it as root, or join the group ferry: sudo usermod -aG ferry $USER',
    };
  return {
    summary: `no engine answers on ${socketPath}`,
    fix: `start it: sudo netcli daemon${option}`,
  };
}

/** The report, and the engine that made it (null: it did not answer). */
async function diagnose(
  rt: Runtime,
  opts: DiagnoseOptions,
): Promise<{ report: DiagnosticsReport; engine: LocalClient | null }> {
  try {
    const engine = await rt.client(opts);
    const report = await engine.diagnose({ signal: rt.io.interrupts() });
    return { report, engine };
  } catch (e) {
    const down = engineDown(e, rt.socket.path);
    if (!down) throw e;
    return { report: engineDownReport(down.summary, down.fix, new Date()), engine: null };
  }
}

/**
 * What the export leaves out besides addresses, keys, tokens and account numbers: the service's
 * host name, which the report names wherever it talks of the control plane. Without the
 * configuration to read it from, nothing is written (fail closed). An engine that did not
 * answer wrote nothing of its own into the report.
 */
async function redaction(engine: LocalClient | null): Promise<RedactContext> {
  if (!engine) return {};
  try {
    const { service } = await engine.getConfig();
    return { service };
  } catch {
    throw new CliError(
      'the engine did not say which service it uses, whose name the export leaves out: no report was written',
      ['try again: netcli diagnose --export <file>'],
    );
  }
}

/** Writes the redacted report, 0600, through a temp file renamed into place; its full path. */
async function writeExport(
  file: string,
  report: DiagnosticsReport,
  redact: RedactContext,
): Promise<string> {
  const target = path.resolve(file);
  const temp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(redactReport(report, redact), null, 2)}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
    await rename(temp, target);
  } catch (e) {
    await rm(temp, { force: true }).catch(() => undefined);
    const code = (e as NodeJS.ErrnoException).code ?? 'an error';
    throw new CliError(`could not write the report to ${target} (${code})`, [
      'give --export a file in a directory you can write to',
    ]);
  }
  return target;
}

export function registerDiagnose(program: Command, rt: Runtime): void {
  withCommon(program.command('diagnose'))
    .description(
      'one-click diagnostics: each check with a verdict and a fix (exit 1 when any is a problem)',
    )
    .option(
      '--export <file>',
      'also write the report as JSON with addresses, keys, tokens, account numbers and the service’s host name redacted (mode 0600), to share',
    )
    .action(async (opts: DiagnoseOptions) => {
      const { report, engine } = await rt.progress(opts, 'Running the checks', diagnose(rt, opts));
      rt.print(opts, report, () => formatDiagnostics(report));
      if (opts.export !== undefined) {
        const written = await writeExport(opts.export, report, await redaction(engine));
        // Said with --json too: stdout holds the report, this is about the file.
        rt.io.stderr.write(`netcli: the report, redacted, was written to ${written}\n`);
      }
      if (report.problems > 0) rt.exitCode = EXIT_REFUSED;
    });
}
