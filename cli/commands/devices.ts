// netcli devices [list] / add / rename <id> <name> / revoke <id>: the account's devices. `add`
// sets up a phone or tablet for the official WireGuard apps: the engine makes its key pair and
// answers its config once; this shows it as a QR code and writes it where asked (0600).
import { randomBytes } from 'node:crypto';
import { access, link, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { CliError, EXIT_USAGE } from '../errors.js';
import { formatAddedDevice, formatDevices } from '../format/account.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';
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
function qrFormat(file: string): 'png' | 'svg' {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.png' || ext === '.svg') return ext === '.png' ? 'png' : 'svg';
  throw new CliError(
    `--qr ${file}: the file name says which image to write: .png or .svg`,
    ['e.g. --qr phone.png'],
    EXIT_USAGE,
  );
}

/**
 * Refuses a file that exists: the config and its QR code hold a private key, and overwriting a
 * file (another tunnel's config, say) would lose what it held. Checked before the device is
 * added, so that nothing is registered in vain.
 */
async function checkNew(file: string, option: string): Promise<string> {
  const target = path.resolve(file);
  const exists = await access(target).then(
    () => true,
    () => false,
  );
  if (exists)
    throw new CliError(`${option} ${target} exists; it is left as it is`, [
      `give ${option} a file that does not exist yet`,
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
  const devices = program.command('devices').description('the account’s devices');

  withCommon(devices.command('list', { isDefault: true }))
    .description('list the account’s devices')
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.listDevices();
      rt.print(opts, answer, () => formatDevices(answer.devices));
    });

  withCommon(devices.command('add'))
    .description(
      'add a phone or tablet to the account: its key made here, its config shown as a QR code for the WireGuard app',
    )
    .requiredOption('--kind <kind>', 'phone or tablet')
    .requiredOption('--name <name>', 'its name in the account’s device list')
    .option('--region <region>', 'where its config points (default: this device’s region setting)')
    .option('--allow-lan', 'keep its LAN (private addresses) out of its tunnel')
    .option('--dns <ip...>', 'its resolvers (default: the relay’s own, through the tunnel)')
    .option('--out <file>', 'also write its config (wg-quick format, 0600), e.g. phone.conf')
    .option('--qr <file>', 'also write its QR code (0600): a .png or .svg file')
    .action(async (opts: AddOptions) => {
      const qr = opts.qr === undefined ? undefined : qrFormat(opts.qr);
      const outFile = opts.out === undefined ? undefined : await checkNew(opts.out, '--out');
      const qrFile = opts.qr === undefined ? undefined : await checkNew(opts.qr, '--qr');
      const client = await rt.client(opts);
      const added = await rt.progress(
        opts,
        'Adding the device',
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
      const written: { what: string; file: string }[] = [];
      const failed: string[] = [];
      const save = async (what: string, file: string, contents: () => Promise<string | Buffer>) => {
        try {
          await writeNew(file, await contents());
          written.push({ what, file });
        } catch (e) {
          failed.push(`${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        }
      };
      if (outFile) await save('config', outFile, async () => added.config);
      if (qrFile && qr) await save('QR code', qrFile, () => qrCodeFile(added.config, qr));
      const code = opts.json ? '' : await terminalQrCode(added.config, rt.io.stdout.isTTY);
      rt.print(opts, added, () => {
        // The code first, as drawn (its colours on a terminal); the words after it screened.
        const [drawn, ...words] = formatAddedDevice(added, code, written);
        return [new Drawing(drawn ?? ''), ...words];
      });
      if (failed.length > 0)
        throw new CliError(`the device was added, but could not write ${failed.join(', ')}`, [
          opts.json
            ? 'its config is in the JSON above: save it now, it is shown only once'
            : 'scan the code above now: the config is shown only once',
          `or remove the device and add it again: netcli devices revoke ${added.device.id}`,
        ]);
    });

  withCommon(devices.command('rename'))
    .description('rename a device')
    .argument('<id>', 'the device’s id (netcli devices)')
    .argument('<name>', 'its new name')
    .action(async (id: string, name: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      const device = await client.renameDevice({ params: { id }, body: { name } });
      rt.print(opts, device, () => [`Device ${device.id} is now called ${device.name}.`]);
    });

  withCommon(devices.command('revoke'))
    .description('remove a device from the account (this one: signs out)')
    .argument('<id>', 'the device’s id (netcli devices)')
    .action(async (id: string, opts: CommonOptions) => {
      const client = await rt.client(opts);
      await client.revokeDevice({ params: { id } });
      const status = await client.status();
      rt.print(opts, { revoked: id, signed_in: status.signed_in }, () => [
        status.signed_in
          ? `Device ${id} was removed from the account.`
          : `Device ${id} (this one) was removed from the account; it is signed out.`,
      ]);
    });
}
