// End to end through real relays: a WireGuard client configured only from POST /connect
// browses the test internet, and its exit address is the relay's; another region, another exit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIREGUARD_PRIVATE_KEY_PLACEHOLDER } from '../../contracts/index.js';
import { Testbed } from './testbed.js';

describe('relays with a real WireGuard data plane', () => {
  let bed: Testbed;
  beforeAll(async () => {
    bed = await Testbed.start();
    await bed.addRelay('tokyo', 'asia-east');
    await bed.addRelay('anywhere', 'global');
  }, 120_000);
  afterAll(async () => bed?.stop(), 60_000);

  it('changes the exit address to the relay of the region asked for', async () => {
    const device = await bed.newDevice(await bed.newAccount());
    const client = await bed.addClient('laptop', device);
    const direct = bed.echoFrom('laptop');
    expect(direct).toBe(bed.net.host('laptop').address);

    const tokyo = await bed.connect(client, {
      encryption: 'AES-256-GCM',
      protocol: 'WireGuard',
      region: 'asia-east',
      usage: 'remote-work',
    });
    expect(tokyo.node.id).toBe(bed.relays.get('tokyo')!.nodeId);
    const viaTokyo = await bed.net.waitFor('traffic through the tokyo relay', 10_000, () =>
      bed.echoFrom('laptop'),
    );
    expect(viaTokyo).toBe(bed.relays.get('tokyo')!.address);

    await bed.connect(client, { region: 'global' });
    const viaGlobal = await bed.net.waitFor('traffic through the global relay', 10_000, () => {
      const seen = bed.echoFrom('laptop');
      return seen === bed.relays.get('anywhere')!.address ? seen : undefined;
    });
    expect(viaGlobal).toBe(bed.relays.get('anywhere')!.address);
    expect(viaGlobal).not.toBe(viaTokyo);
  }, 60_000);

  it('connects a phone from the wg-quick config that the API renders, its key filled in here', async () => {
    const account = await bed.newAccount();
    const desktop = await bed.newDevice(account, 'desktop');
    const phone = await bed.newDevice(account, 'phone');
    const answer = await bed.control(desktop.token).wireguardConfig({
      params: { id: phone.id },
      body: { region: 'global' },
    });
    // The service never sees the key: the config has a placeholder where the device puts it.
    const lines = answer.config.split('\n');
    expect(lines.filter((l) => l === WIREGUARD_PRIVATE_KEY_PLACEHOLDER)).toHaveLength(1);
    const config = lines
      .map((l) =>
        l === WIREGUARD_PRIVATE_KEY_PLACEHOLDER ? `PrivateKey = ${phone.privateKey}` : l,
      )
      .join('\n');
    const client = await bed.addClient('phone', phone);
    bed.applyWgQuick(client, config);
    const exit = await bed.net.waitFor('traffic through the config', 10_000, () =>
      bed.echoFrom('phone', 1),
    );
    expect(exit).toBe(bed.relays.get('anywhere')!.address);
  }, 60_000);
});
