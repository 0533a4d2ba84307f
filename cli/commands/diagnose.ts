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
  translator,
  type DiagnosticFound,
  type DiagnosticsReport,
  type LocalClient,
  type Translate,
} from '../../contracts/index.js';
import { CliError, EXIT_REFUSED } from '../errors.js';
import { formatDiagnostics } from '../format/diagnose.js';
import { redactReport, type RedactContext } from '../redact.js';
import { flags, withCommon, type CommonOptions, type Runtime } from '../runtime.js';

/** How long netcli waits for the report: the route's own limit (the local API's route table). */
const DIAGNOSE_TIMEOUT_MS = localRoutes.diagnose.timeoutMs;

interface DiagnoseOptions extends CommonOptions {
  export?: string;
}

/**
 * What the report says when the engine did not answer (null: it did, or the user cancelled): in
 * English with its finding, like the engine's own checks (the report is data, `--json` the same
 * in every language; formatDiagnostics words it in netcli's language).
 */
function engineDown(
  e: unknown,
  socketPath: string,
): { summary: string; fix: string; found: DiagnosticFound<'engine'> } | null {
  if (!(e instanceof ApiError) || e.status !== undefined) return null;
  if (e.code === 'aborted' || e.code === 'bad-response') return null;
  const t = translator('en');
  const option = socketPath === DEFAULT_ENGINE_SOCKET ? '' : ` --socket ${socketPath}`;
  const socket = socketPath;
  if (e.code === 'timeout') {
    const seconds = DIAGNOSE_TIMEOUT_MS / 1000;
    return {
      summary: t('netcli.diagnose.timeout', { socket, count: seconds }),
      fix: t('netcli.diagnose.restart', { option }),
      found: { finding: 'not-answering', params: { socket, seconds } },
    };
  }
  if (/\bEACCES\b|\bEPERM\b/.test(e.detail))
    return {
      summary: t('output.errors.permissionDenied', { socket }),
      fix: t('netcli.diagnose.joinGroup'),
      found: { finding: 'permission-denied', params: { socket } },
    };
  return {
    summary: t('output.errors.noEngine', { socket }),
    fix: t('netcli.diagnose.start', { option }),
    found: { finding: 'not-running', params: { socket } },
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
    return {
      report: engineDownReport(down.summary, down.fix, new Date(), down.found),
      engine: null,
    };
  }
}

/**
 * What the export leaves out besides addresses, keys, tokens and account numbers: the service's
 * host name, which the report names wherever it talks of the control plane. Without the
 * configuration to read it from, nothing is written (fail closed). An engine that did not
 * answer wrote nothing of its own into the report.
 */
async function redaction(engine: LocalClient | null, t: Translate): Promise<RedactContext> {
  if (!engine) return {};
  try {
    const { service } = await engine.getConfig();
    return { service };
  } catch {
    throw new CliError(t('netcli.diagnose.noService'), [t('netcli.diagnose.tryAgain')]);
  }
}

/** Writes the redacted report, 0600, through a temp file renamed into place; its full path. */
async function writeExport(
  file: string,
  report: DiagnosticsReport,
  redact: RedactContext,
  t: Translate,
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
    const code = (e as NodeJS.ErrnoException).code ?? t('netcli.diagnose.anError');
    throw new CliError(t('netcli.diagnose.notWritten', { file: target, code }), [
      t('netcli.diagnose.writable'),
    ]);
  }
  return target;
}

export function registerDiagnose(program: Command, rt: Runtime): void {
  const { t } = rt;
  withCommon(program.command('diagnose'))
    .description(t('netcli.diagnose.description'))
    .option(flags('--export', '<file>'), t('netcli.diagnose.export'))
    .action(async (opts: DiagnoseOptions) => {
      const { report, engine } = await rt.progress(
        opts,
        t('netcli.diagnose.running'),
        diagnose(rt, opts),
      );
      rt.print(opts, report, () => formatDiagnostics(report, t, rt.language));
      if (opts.export !== undefined) {
        const written = await writeExport(opts.export, report, await redaction(engine, t), t);
        // Said with --json too: stdout holds the report, this is about the file.
        rt.io.stderr.write(`netcli: ${t('netcli.diagnose.written', { file: written })}\n`);
      }
      if (report.problems > 0) rt.exitCode = EXIT_REFUSED;
    });
}
