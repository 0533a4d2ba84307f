// The split rules' addresses in the firewall: each in its rule's set for at least a couple of
// minutes, put in again only when its time runs low, what is still held listed with the time
// it has left, and nothing held that the kernel did not take.
import { beforeEach, describe, expect, it } from 'vitest';

import { Journal } from '../../platform/os/journal.fake.js';
import { FakeFirewall } from '../../platform/os/nftables.fake.js';
import {
  PROTECTION_TABLE,
  RULE_SETS,
  protectionTable,
  type ProtectionPolicy,
} from '../protection/firewall-policy.js';
import { MIN_RULE_TIMEOUT_S, RuleAddresses } from './rule-addresses.js';

const POLICY: ProtectionPolicy = {
  block: true,
  blockIpv6: true,
  nodes: [{ address: '198.51.100.7', port: 51820, protocol: 'udp' }],
  probes: [{ address: '198.51.100.7', port: 51884, protocol: 'udp' }],
  controlPlane: [{ address: '203.0.113.5', port: 443, protocol: 'tcp' }],
  lan: null,
  dhcpLinks: [{ name: 'eth0', v4: ['192.168.1.0/24'] }],
  dns: ['10.64.0.1'],
  split: null,
  rules: 0,
};

let journal: Journal;
let fw: FakeFirewall;
let clock: { ms: number };
let rules: RuleAddresses;

const addCalls = () => journal.ops().filter((op) => op === 'firewall.addElements').length;
const setOf = (via: 'tunnel' | 'direct') => fw.elements(PROTECTION_TABLE, RULE_SETS[via]);
const elem = (val: string, timeout: number) => ({ elem: { val, timeout } });

beforeEach(async () => {
  journal = new Journal();
  fw = new FakeFirewall(journal);
  await fw.apply(PROTECTION_TABLE, protectionTable(POLICY));
  clock = { ms: 1_700_000_000_000 };
  rules = new RuleAddresses(fw, () => clock.ms);
});

describe('RuleAddresses', () => {
  it('puts addresses in the rule’s set for at least MIN_RULE_TIMEOUT_S', async () => {
    expect(MIN_RULE_TIMEOUT_S).toBeGreaterThanOrEqual(60);
    await rules.add('tunnel', ['198.51.100.10', '198.51.100.11'], 30);
    expect(setOf('tunnel')).toEqual([
      elem('198.51.100.10', MIN_RULE_TIMEOUT_S),
      elem('198.51.100.11', MIN_RULE_TIMEOUT_S),
    ]);
    expect(setOf('direct')).toEqual([]);
    // A long TTL holds that long; a fraction of a second is a whole second more.
    await rules.add('direct', ['192.0.2.5'], 3600);
    await rules.add('direct', ['192.0.2.6'], MIN_RULE_TIMEOUT_S + 0.2);
    expect(setOf('direct')).toEqual([
      elem('192.0.2.5', 3600),
      elem('192.0.2.6', MIN_RULE_TIMEOUT_S + 1),
    ]);
    expect(rules.size).toBe(4);
  });

  it('does not call the firewall again for an address held long enough', async () => {
    await rules.add('tunnel', ['198.51.100.10'], 300);
    expect(addCalls()).toBe(1);
    clock.ms += 10_000;
    await rules.add('tunnel', ['198.51.100.10'], 300);
    expect(addCalls()).toBe(1);
    // Only the new one goes in, beside one held.
    await rules.add('tunnel', ['198.51.100.10', '198.51.100.12'], 300);
    expect(addCalls()).toBe(2);
    const last = journal.entries.at(-1)!.args[1];
    expect(JSON.stringify(last)).not.toContain('198.51.100.10');
    expect(JSON.stringify(last)).toContain('198.51.100.12');
    // The same address for the other rule is another entry.
    await rules.add('direct', ['198.51.100.10'], 300);
    expect(addCalls()).toBe(3);
  });

  it('puts an address in again once less than half its time is left', async () => {
    await rules.add('tunnel', ['198.51.100.10'], 100); // held MIN_RULE_TIMEOUT_S
    const half = (MIN_RULE_TIMEOUT_S * 1000) / 2;
    clock.ms += half - 1_000;
    await rules.add('tunnel', ['198.51.100.10'], 100);
    expect(addCalls()).toBe(1);
    clock.ms += 2_000; // now past half
    await rules.add('tunnel', ['198.51.100.10'], 100);
    expect(addCalls()).toBe(2);
    expect(rules.elements()).toEqual([
      { element: { name: RULE_SETS.tunnel, elem: [elem('198.51.100.10', MIN_RULE_TIMEOUT_S)] } },
    ]);
  });

  it('lists what it holds with the time each has left, and drops what has expired', async () => {
    await rules.add('tunnel', ['198.51.100.10'], MIN_RULE_TIMEOUT_S);
    await rules.add('direct', ['192.0.2.5'], 600);
    clock.ms += 30_000;
    expect(rules.elements()).toEqual([
      {
        element: { name: RULE_SETS.tunnel, elem: [elem('198.51.100.10', MIN_RULE_TIMEOUT_S - 30)] },
      },
      { element: { name: RULE_SETS.direct, elem: [elem('192.0.2.5', 570)] } },
    ]);
    clock.ms += (MIN_RULE_TIMEOUT_S - 30) * 1000;
    expect(rules.elements()).toEqual([
      { element: { name: RULE_SETS.direct, elem: [elem('192.0.2.5', 600 - MIN_RULE_TIMEOUT_S)] } },
    ]);
    expect(rules.size).toBe(1);
    clock.ms += 600_000;
    expect(rules.elements()).toEqual([]);
    expect(rules.size).toBe(0);
  });

  it('rejects when the table is not there, and then holds nothing', async () => {
    const bare = new FakeFirewall();
    const none = new RuleAddresses(bare, () => clock.ms);
    await expect(none.add('tunnel', ['198.51.100.10'], 60)).rejects.toThrow();
    expect(none.size).toBe(0);
    expect(none.elements()).toEqual([]);
    // Once the table is there the same address goes in (it was not taken for held).
    await bare.apply(PROTECTION_TABLE, protectionTable(POLICY));
    await none.add('tunnel', ['198.51.100.10'], 60);
    expect(bare.elements(PROTECTION_TABLE, RULE_SETS.tunnel)).toEqual([
      elem('198.51.100.10', MIN_RULE_TIMEOUT_S),
    ]);
  });

  it('holds nothing of an add the firewall refused', async () => {
    fw.failNext('addElements');
    await expect(rules.add('direct', ['192.0.2.5'], 60)).rejects.toThrow();
    expect(rules.size).toBe(0);
    await rules.add('direct', ['192.0.2.5'], 60);
    expect(addCalls()).toBe(2);
    expect(setOf('direct')).toEqual([elem('192.0.2.5', MIN_RULE_TIMEOUT_S)]);
  });

  it('forgets everything when cleared: the next add goes to the firewall again', async () => {
    await rules.add('tunnel', ['198.51.100.10'], 300);
    rules.clear();
    expect(rules.size).toBe(0);
    expect(rules.elements()).toEqual([]);
    await rules.add('tunnel', ['198.51.100.10'], 300);
    expect(addCalls()).toBe(2);
  });

  it('makes no firewall call for an answer without addresses', async () => {
    await rules.add('tunnel', [], 300);
    expect(addCalls()).toBe(0);
  });
});
