// platform/os's Linux OS seams (the engine's and the relay's) for real, inside a namespace of
// their own: the same contract the fakes keep (so the engine's and the relay's unit tests stand
// on fakes that behave like this), checked again with `ip -j` and `nft -j list`, and the
// firewall's atomic replacement. Nothing runs in the host's namespace (wireguard-go's socket is
// in the one /run, under a name of this run's own); the namespace is deleted afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FerryError } from '../../engine/errors.js';
import { runCommand, type CommandRunner } from '../../platform/os/command.js';
import { NftFirewall } from '../../platform/os/nftables.js';
import { LinuxLinks } from '../../platform/os/links.js';
import { LinuxRoutes } from '../../platform/os/routes.js';
import {
  CONTRACT_NFT,
  firewallContract,
  killSwitchLike,
  linksContract,
  routesContract,
  wireguardContract,
} from '../../platform/os/seams.contract.js';
import { linuxWireguardSystem, type WireguardSystem } from '../../platform/os/wireguard-go.js';
import { TestNetwork, requireTools, sh } from './test-network.js';

let net: TestNetwork | undefined;
/** The test's namespace: loopback only. */
let ns = '';

/** Runs each tool inside the test's namespace: the real argv, in a network of its own. */
const inNamespace: CommandRunner = (tool, args) =>
  runCommand('ip', ['netns', 'exec', ns, tool, ...args]);

const links = new LinuxLinks(inNamespace);
const routes = new LinuxRoutes(inNamespace);
const firewall = new NftFirewall(inNamespace);
let wireguard: WireguardSystem | undefined;

beforeAll(() => {
  requireTools(['ip', 'nft', 'wireguard-go']);
  net = TestNetwork.create();
  ns = net.addIsolatedHost('eng').ns;
  wireguard = linuxWireguardSystem({ under: ['ip', 'netns', 'exec', ns] });
});

afterAll(() => net?.destroy());

describe('Linux links keep the contract', () => linksContract(() => links));
describe('Linux routes keep the contract', () =>
  routesContract(
    () => links,
    () => routes,
  ));
describe('the nft firewall keeps the contract', () => firewallContract(() => firewall));
describe('wireguard-go keeps the contract', () =>
  wireguardContract(() => wireguard!, `fyc${process.pid % 1_000_000}`));

const ipJson = (...args: string[]) => JSON.parse(sh('ip', ['-n', ns, '-j', ...args])) as any[];
const nftTable = () =>
  (
    JSON.parse(
      sh('ip', ['netns', 'exec', ns, 'nft', '-j', 'list', 'table', 'inet', CONTRACT_NFT.name]),
    ) as { nftables: Record<string, any>[] }
  ).nftables;

describe('as ip and nft show it', () => {
  it('a configured tunnel link and its full-tunnel routes and rules', async () => {
    await links.create('ferry0', 'tun');
    await links.setAddress('ferry0', '10.64.0.2/32');
    await links.setMtu('ferry0', 1420);
    await links.setUp('ferry0', true);
    await routes.replace({ destination: '0.0.0.0/0', dev: 'ferry0', table: 51820 });
    await routes.addRule({
      family: 4,
      priority: 100,
      table: 51820,
      fwmark: 0xca6c,
      notFwmark: true,
    });
    try {
      const [link] = ipJson('-d', 'address', 'show', 'dev', 'ferry0');
      expect(link).toMatchObject({ ifname: 'ferry0', mtu: 1420, linkinfo: { info_kind: 'tun' } });
      expect(link.flags).toContain('UP');
      expect(link.addr_info).toContainEqual(
        expect.objectContaining({ local: '10.64.0.2', prefixlen: 32 }),
      );
      expect(ipJson('-4', 'route', 'show', 'table', '51820')).toEqual([
        expect.objectContaining({ dst: 'default', dev: 'ferry0' }),
      ]);
      expect(ipJson('-4', 'rule', 'show')).toContainEqual(
        expect.objectContaining({ priority: 100, not: null, fwmark: '0xca6c', table: '51820' }),
      );
    } finally {
      await routes.deleteRule({
        family: 4,
        priority: 100,
        table: 51820,
        fwmark: 0xca6c,
        notFwmark: true,
      });
      await links.delete('ferry0');
    }
    expect(ipJson('link', 'show').map((l) => l.ifname)).toEqual(['lo']);
    expect(ipJson('-4', 'route', 'show', 'table', '51820')).toEqual([]);
    expect(ipJson('-4', 'rule', 'show').map((r) => r.priority)).toEqual([0, 32766, 32767]);
  });

  it('a firewall table applied twice holds the second body once, never both', async () => {
    await firewall.apply(CONTRACT_NFT, killSwitchLike('lo'));
    await firewall.apply(CONTRACT_NFT, killSwitchLike('ferry0'));
    try {
      const objects = nftTable();
      expect(objects.filter((o) => o.chain)).toEqual([
        { chain: expect.objectContaining({ name: 'output', hook: 'output', policy: 'drop' }) },
      ]);
      expect(objects.filter((o) => o.set)).toHaveLength(1);
      const rules = objects.filter((o) => o.rule);
      expect(rules).toHaveLength(1);
      expect(JSON.stringify(rules[0])).toContain('"right":"ferry0"');
    } finally {
      await firewall.remove(CONTRACT_NFT);
    }
  });

  it('a refused body leaves the table in force exactly as it was', async () => {
    await firewall.apply(CONTRACT_NFT, killSwitchLike('ferry0'));
    try {
      const before = nftTable();
      const e = await firewall
        .apply(CONTRACT_NFT, [
          { chain: { name: 'output', type: 'filter', hook: 'output', prio: 0, policy: 'accept' } },
          { rule: { chain: 'no-such-chain', expr: [{ accept: null }] } },
        ])
        .catch((err: unknown) => err);
      expect(e).toBeInstanceOf(FerryError);
      expect((e as FerryError).code).toBe('os-command-failed');
      expect(nftTable()).toEqual(before);
    } finally {
      await firewall.remove(CONTRACT_NFT);
    }
    expect(await firewall.exists(CONTRACT_NFT)).toBe(false);
  });
});
