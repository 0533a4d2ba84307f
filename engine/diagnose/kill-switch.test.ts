// kill-switch against the fake firewall holding what the engine applied: off, armed, in force and
// complete, missing, and incomplete in each way a table can be (a chain, a set, the final drop).
import { describe, expect, it } from 'vitest';
import { FakeFirewall } from '../../platform/os/nftables.fake.js';
import type { NftObject } from '../../platform/os/nftables.js';
import {
  PROTECTION_TABLE,
  protectionTable,
  type ProtectionPolicy,
} from '../protection/firewall-policy.js';
import { checkKillSwitch, type KillSwitchDeps } from './kill-switch.js';

const POLICY: ProtectionPolicy = {
  block: true,
  blockIpv6: true,
  nodes: [{ address: '192.0.2.10', port: 51820, protocol: 'udp' }],
  probes: [],
  controlPlane: [{ address: '192.0.2.80', port: 443, protocol: 'tcp' }],
  lan: null,
  dns: ['10.64.0.1'],
  split: null,
};

async function killSwitch(
  body: NftObject[] | null,
  over: Partial<KillSwitchDeps> = {},
): Promise<ReturnType<typeof checkKillSwitch>> {
  const firewall = new FakeFirewall();
  if (body) await firewall.apply(PROTECTION_TABLE, body);
  return checkKillSwitch({
    setting: true,
    lockdown: false,
    stage: 'connected',
    policy: POLICY,
    inspect: () => firewall.inspect(PROTECTION_TABLE),
    ...over,
  });
}

const complete = () => protectionTable(POLICY);

describe('the kill-switch check', () => {
  it('warns when the setting is off', async () => {
    expect(await killSwitch(null, { setting: false })).toMatchObject({
      verdict: 'warning',
      summary: 'off: traffic leaves outside the tunnel whenever it drops',
      fix: 'netcli config set kill_switch on',
    });
  });

  it('is armed while disconnected without lockdown, and asks the kernel nothing', async () => {
    let asked = false;
    expect(
      await checkKillSwitch({
        setting: true,
        lockdown: false,
        stage: 'off',
        policy: null,
        inspect: async () => {
          asked = true;
          return null;
        },
      }),
    ).toMatchObject({ verdict: 'ok', summary: 'armed: holds from the next connect' });
    expect(asked).toBe(false);
  });

  it('is ok in force, counting the rules the kernel has', async () => {
    const rules = complete().filter((o) => 'rule' in o).length;
    for (const stage of ['connecting', 'connected', 'reconnecting', 'error'] as const)
      expect(await killSwitch(complete(), { stage })).toMatchObject({
        verdict: 'ok',
        summary: `in force: ${rules} rules`,
      });
    expect((await killSwitch(complete(), { stage: 'off', lockdown: true })).summary).toBe(
      `in force (lockdown): ${rules} rules`,
    );
  });

  it('is a problem when the table is gone, or the engine holds no blocking policy', async () => {
    const fix = 'reconnect (netcli connect)';
    expect(await killSwitch(null)).toMatchObject({
      verdict: 'problem',
      summary: 'the kill switch is not in force',
      fix,
    });
    expect(await killSwitch(complete(), { policy: null })).toMatchObject({
      verdict: 'problem',
      fix,
    });
    expect(await killSwitch(complete(), { policy: { ...POLICY, block: false } })).toMatchObject({
      verdict: 'problem',
    });
  });

  it('is a problem naming what is missing: a chain, a set, the final drop', async () => {
    const noForward = complete().filter(
      (o) =>
        !('chain' in o && o.chain.name === 'guard_forward') &&
        !('rule' in o && o.rule.chain === 'guard_forward'),
    );
    expect(await killSwitch(noForward)).toMatchObject({
      verdict: 'problem',
      summary: 'incomplete: chain guard_forward missing from the table in force',
    });
    const noSet = complete().filter((o) => !('set' in o && o.set.name === 'dns4'));
    // A set the rules name cannot be missing in nft; the check does not lean on that.
    expect((await killSwitch(noSet)).summary).toBe(
      'incomplete: set dns4 missing from the table in force',
    );
    const body = complete();
    const lastOut = body.map((o) => 'rule' in o && o.rule.chain === 'guard_out').lastIndexOf(true);
    body.splice(lastOut, 1);
    expect((await killSwitch(body)).summary).toBe(
      'incomplete: the drop at the end of guard_out missing from the table in force',
    );
    const hooked = complete().map((o) =>
      'chain' in o && o.chain.name === 'guard_out' ? { chain: { ...o.chain, hook: 'input' } } : o,
    );
    expect((await killSwitch(hooked)).summary).toMatch(/chain guard_out on the output hook/);
  });
});
