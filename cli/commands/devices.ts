// netcli devices [list] / add / rename <id> <name> / revoke <id>: the account's devices. `add`
// sets up a phone or tablet for the official WireGuard apps: the engine makes its key pair and
// answers its config once; this shows it as a QR code and writes it where asked (0600).
import { randomBytes } from 'node:crypto';
import { access, link, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { Translate } from '../../contracts/index.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { formatAddedDevice, formatDevices } from '../format/account.js';
import { flags, withCommon, type CommonOptions, type Runtime } from '../runtime.js';
import { Drawing } from '../terminal-output.js';

interface AddOptions extends CommonOptions {
  kind: string;
  name: string;
  region?: string;
  allowLan?: boolean;
  dns?: string[];
  out?: string;
  qr?: string;
}

/** The QR code's file format, from the name `--qr` gives. */
function qrFormat(file: string, t: Translate): 'png' | 'svg' {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.png' || ext === '.svg') return ext === '.png' ? 'png' : 'svg';
  throw new CliError(
    t('netcli.devices.qrFormat', { file }),
    [t('netcli.devices.qrExample')],
    EXIT_USAGE,
  );
}

/**
 * Refuses a file that exists: the config and its QR code hold a private key, and overwriting a
 * file (another tunnel's config, say) would lose what it held. Checked before the device is
 * added, so that nothing is registered in vain.
 */
async function checkNew(file: string, option: string, t: Translate): Promise<string> {
  const target = path.resolve(file);
  const exists = await access(target).then(
    () => true,
    () => false,
  );
  if (exists)
    throw new CliError(t('netcli.devices.exists', { option, file: target }), [
      t('netcli.devices.newFile', { option }),
    ]);
  return target;
}

/**
 * Writes a new file, 0600, whole or not at all: a temp file in the same directory, linked to
 * its name (which fails if the name was taken meanwhile), then the temp name removed.
 */
async function writeNew(target: string, contents: string | Buffer): Promise<void> {
  const temp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, contents, { mode: 0o600, flag: 'wx' });
    await link(temp, target);
  } finally {
    await rm(temp, { force: true }).catch(() => undefined);
  }
}

export function registerDevices(program: Command, rt: Runtime): void {
  const { t } = rt;
  const devices = program.command('devices').description(t('netcli.devices.description'));

  withCommon(devices.command('list', { isDefault: true }))
    .description(t('netcli.devices.list'))
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.listDevices();
      rt.print(opts, answer, () => formatDevices(answer.devices, t));
    });

  withCommon(devices.command('add'))
    .description(t('netcli.devices.add'))
    .requiredOption(flags('--kind', '<kind>'), t('netcli.devices.kind'))
    .requiredOption(flags('--name', '<name>'), t('netcli.devices.name'))
    .option(flags('--region', '<region>'), t('netcli.devices.region'))
    .option('--allow-lan', t('netcli.devices.allowLan'))
    .option(flags('--dns', '<ip...>'), t('netcli.devices.dns'))
    .option(flags('--out', '<file>'), t('netcli.devices.out'))
    .option(flags('--qr', '<file>'), t('netcli.devices.qr'))
    .action(async (opts: AddOptions) => {
      const qr = opts.qr === undefined ? undefined : qrFormat(opts.qr, t);
      const outFile = opts.out === undefined ? undefined : await checkNew(opts.out, '--out', t);
      const qrFile = opts.qr === undefined ? undefined : await checkNew(opts.qr, '--qr', t);
      const client = await rt.client(opts);
      const added = await rt.progress(
        opts,
        t('netcli.devices.adding'),
        client.addDevice({
          body: {
            kind: opts.kind,
            name: opts.name,
            allow_lan: opts.allowLan ?? false,
            ...(opts.region === undefined ? {} : { region: opts.region }),
            ...(opts.dns === undefined ? {} : { dns: opts.dns }),
          },
        }),
      );
      // The key exists only in this answer now: whatever fails below, the config is shown.
      const { qrCodeFile, terminalQrCode } = await import('../qr-code.js');
      const written: { what: 'config' | 'qr'; file: string }[] = [];
      const failed: string[] = [];
      const save = async (
        what: 'config' | 'qr',
        file: string,
        contents: () => Promise<string | Buffer>,
      ) => {
        try {
          await writeNew(file, await contents());
          written.push({ what, file });
        } catch (e) {
          failed.push(`${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        }
      };
      if (outFile) await save('config', outFile, async () => added.config);
      if (qrFile && qr) await save('qr', qrFile, () => qrCodeFile(added.config, qr));
      const code = opts.json ? '' : await terminalQrCode(added.config, rt.io.stdout.isTTY);
      rt.print(opts, added, () => {
        // The code first, as drawn (its colours on a terminal); the words after it screened.
        const [drawn, ...words] = formatAddedDevice(added, code, written, t);
        return [new Drawing(drawn ?? ''), ...words];
      });
      if (failed.length > 0)
        throw new CliError(t('netcli.devices.notWritten', { files: failed.join(', ') }), [
          opts.json ? t('netcli.devices.saveJson') : t('netcli.devices.scanNow'),
          t('netcli.devices.addAgain', { id: added.device.id }),
        ]);
    });

  withCommon(devices.command('rename'))
    .description(t('netcli.devices.rename'))
    .argument('<id>', t('netcli.devices.id'))
    .argument('<name>', t('netcli.devices.newName'))
    .action(async (id: string, name: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      const device = await client.renameDevice({ params: { id }, body: { name } });
      rt.print(opts, device, () => [
        t('netcli.devices.renamed', { id: device.id, name: device.name }),
      ]);
    });

  withCommon(devices.command('revoke'))
    .description(t('netcli.devices.revoke'))
    .argument('<id>', t('netcli.devices.id'))
    .action(async (id: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      await client.revokeDevice({ params: { id } });
      const status = await client.status();
      rt.print(opts, { revoked: id, signed_in: status.signed_in }, () => [
        status.signed_in
          ? t('netcli.devices.revoked', { id })
          : t('netcli.devices.revokedThis', { id }),
      ]);
    });
}
