// A destination inside the tunnel block 10.64.0.0/10 that is no device's address (a relay's
// cloud network may use the same private range): devices reach it through the relay over
// WireGuard and over Ferry once the operator allows that network (`--allow-network`; private
// networks are closed to devices otherwise, see relay-isolation.test.ts), while replies still
// find their way back into each tunnel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOf, tunnelOffset } from '../../contracts/index.js';
import { Testbed } from './testbed.js';

describe('a destination inside the tunnel block', () => {
  let bed: Testbed;
  let tokyo: string;
  let vpcUrl: string;
  beforeAll(async () => {
    bed = await Testbed.start();
    tokyo = (
      await bed.addRelay('tokyo', 'asia-east', {
        ferry: true,
        allowNetworks: [bed.net.vpcSubnet],
      })
    ).address;
    vpcUrl = await bed.startVpcEcho();
  }, 120_000);
  afterAll(async () => bed?.stop(), 60_000);

  const exitsThrough = async (host: string, url: string) => {
    try {
      await bed.net.waitFor(`${host} to reach ${url} through the relay`, 20_000, () =>
        bed.echoFrom(host, 1, url) === tokyo ? true : undefined,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${bed.diagnostics()}`);
    }
  };

  it('lies inside the block, in a shard no device uses', async () => {
    const vpc = bed.net.host('vpc-echo').address;
    expect(() => tunnelOffset(vpc)).not.toThrow();
    const device = await bed.newDevice(await bed.newAccount());
    expect(shardOf(vpc)).not.toBe(shardOf(device.ipv4));
  });

  it('is reached by a WireGuard device, and the device is still reached back', async () => {
    const client = await bed.addClient('wg', await bed.newDevice(await bed.newAccount()));
    await bed.connect(client, { region: 'asia-east' });
    await exitsThrough('wg', bed.echoUrl);
    await exitsThrough('wg', vpcUrl);
  }, 60_000);

  it('is reached by a Ferry device, and the device is still reached back', async () => {
    const device = await bed.newDevice(await bed.newAccount(), 'ferry');
    await bed.addFerryClient('ferry', device, { region: 'asia-east' });
    await exitsThrough('ferry', bed.echoUrl);
    await exitsThrough('ferry', vpcUrl);
  }, 60_000);
});
