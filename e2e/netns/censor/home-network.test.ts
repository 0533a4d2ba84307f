// The test internet's home network (TestNetwork.addHomeHost, moveHome): a host there has a home
// address and reaches both the access and the servers side through the router (one hop: routed,
// where a censor on the router sees it), a host moved there keeps working, and renumbering a home
// host keeps it at home.
import { afterEach, expect, it } from 'vitest';

import { TestNetwork, requireTools } from '../test-network.js';
import { HTTP_GET, startTcpServer, tcpExchange } from './censor-test-kit.js';

let net: TestNetwork | undefined;
afterEach(async () => {
  await net?.destroyAsync();
  net = undefined;
});

/** The TTL of the echo reply `from` gets from `to` (64 on the link, 63 one router away). */
function replyTtl(from: string, to: string): number {
  const out = net!.exec(from, ['ping', '-c', '1', '-W', '2', to]);
  return Number(/ttl=(\d+)/.exec(out)?.[1]);
}

it('puts hosts behind the router, routed to both sides, and keeps them there', async () => {
  requireTools(['ping']);
  net = TestNetwork.create();
  const home = net.addHomeHost('home');
  const neighbour = net.addHomeHost('neighbour');
  const access = net.addAccessHost('laptop');
  const server = net.addServerHost('abroad');
  expect(home.address).toMatch(/^203\.0\.113\./);
  expect(net.exec('home', ['ip', 'route', 'show', 'default'])).toContain(`via ${net.homeGateway}`);
  expect(replyTtl('home', neighbour.address)).toBe(64);
  expect(replyTtl('home', access.address)).toBe(63);
  expect(replyTtl('home', server.address)).toBe(63);

  startTcpServer(net, 'abroad', 9000, 'echo');
  await net.waitFor('the server', 5000, () =>
    tcpExchange(net!, 'laptop', server.address, 9000, HTTP_GET).bytes ? true : undefined,
  );
  const before = access.address;
  const moved = net.moveHome('laptop');
  expect(moved).toMatch(/^203\.0\.113\./);
  expect(net.host('laptop').address).toBe(moved);
  const addresses = net.exec('laptop', ['ip', '-4', '-o', 'address', 'show', 'dev', 'eth0']);
  expect(addresses).toContain(`${moved}/24`);
  expect(addresses).not.toContain(`${before}/`);
  expect(tcpExchange(net, 'laptop', server.address, 9000, HTTP_GET).text).toMatch(/^ok /);
  expect(replyTtl('laptop', home.address)).toBe(64);

  const renumbered = net.renumber('laptop');
  expect(renumbered).toMatch(/^203\.0\.113\./);
  expect(renumbered).not.toBe(moved);
  expect(tcpExchange(net, 'laptop', server.address, 9000, HTTP_GET).text).toMatch(/^ok /);
}, 30_000);
