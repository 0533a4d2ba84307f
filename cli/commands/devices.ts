// netcli devices [list] / rename <id> <name> / revoke <id>: the account's devices.
import type { Command } from 'commander';
import { formatDevices } from '../format/account.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

export function registerDevices(program: Command, rt: Runtime): void {
  const devices = program.command('devices').description('the account’s devices');

  withCommon(devices.command('list', { isDefault: true }))
    .description('list the account’s devices')
    .action(async (opts: CommonOptions) => {
      const client = await rt.client(opts);
      const answer = await client.listDevices();
      rt.print(opts, answer, () => formatDevices(answer.devices));
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
