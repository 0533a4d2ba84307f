// The censor's fet profile (Wu et al., USENIX Security 2023): a TCP connection from home whose
// first data packet no exemption covers is dropped, and so is its (client, server, port) for the
// block time; exempt traffic (HTTP) passes; the block ends when its time is up.
import { afterEach, beforeEach, expect, it } from 'vitest';

import { TestNetwork, requireTools } from '../test-network.js';
import { Censor } from './censor.js';
import { HTTP_GET, flaggedBytes, startTcpServer, tcpExchange } from './censor-test-kit.js';

let net: TestNetwork;
let censor: Censor | undefined;
beforeEach(() => {
  net = TestNetwork.create();
});
afterEach(async () => {
  await censor?.stop();
  censor = undefined;
  await net.destroyAsync();
});

it('drops a fully encrypted first packet and its (client, server, port) for the block time; HTTP passes', async () => {
  net.addHomeHost('client');
  const server = net.addServerHost('abroad').address;
  for (const port of [9000, 9001]) startTcpServer(net, 'abroad', port, 'echo');
  await net.waitFor('servers', 5000, () =>
    tcpExchange(net, 'client', server, 9001, HTTP_GET).bytes ? true : undefined,
  );
  // Without the censor the same bytes are answered.
  expect(tcpExchange(net, 'client', server, 9000, flaggedBytes()).text).toMatch(/^ok /);
  const BLOCK_SECONDS = 6;
  censor = await Censor.start(net, { profiles: ['fet'], fetBlockSeconds: BLOCK_SECONDS });

  const http = tcpExchange(net, 'client', server, 9000, HTTP_GET);
  expect(http.text).toMatch(/^ok /);
  await censor.waitEvent('fet-pass', (e) => e.port === 9000);

  const flaggedAt = Date.now();
  const random = tcpExchange(net, 'client', server, 9000, flaggedBytes(), 1000);
  expect(random.connected).toBe(true);
  expect(random.bytes).toBe(0);
  await censor.waitEvent('fet-flag', (e) => e.server === server && e.port === 9000);

  // The (client, server, port) is blocked: even HTTP; another port is not.
  expect(tcpExchange(net, 'client', server, 9000, HTTP_GET, 1000).connected).toBe(false);
  expect(tcpExchange(net, 'client', server, 9001, HTTP_GET).text).toMatch(/^ok /);
  // Until the block's time is up, and not much longer.
  await net.waitFor('the block to end', 15_000, () =>
    tcpExchange(net, 'client', server, 9000, HTTP_GET, 500).text ? true : undefined,
  );
  const blocked = (Date.now() - flaggedAt) / 1000;
  expect(blocked).toBeGreaterThan(BLOCK_SECONDS - 1);
  expect(blocked).toBeLessThan(BLOCK_SECONDS + 6);
}, 40_000);

/** iperf3 from the home host to `server` for 3 s: received bits per second. */
function iperf(server: string): number {
  const out = net.exec('client', ['iperf3', '-c', server, '-t', '3', '-O', '1', '-J']);
  return (JSON.parse(out) as { end: { sum_received: { bits_per_second: number } } }).end
    .sum_received.bits_per_second;
}

it('queues only first packets: iperf3 through the inspected profiles keeps its speed', async () => {
  requireTools(['iperf3']);
  net.addHomeHost('client');
  const server = net.addServerHost('abroad').address;
  net.spawn('abroad', 'iperf3', ['iperf3', '-s']);
  await net.waitFor('iperf3 server', 5000, () =>
    net.exec('abroad', ['ss', '-Hltn', 'sport = :5201']).trim() ? true : undefined,
  );
  const free = iperf(server);
  censor = await Censor.start(net, {
    profiles: ['fet', 'sni-block', 'tls-fingerprint', 'tcp-budget'],
    hosting: ['192.0.2.0/24'],
  });
  const censored = iperf(server);
  // iperf3's first packets (its cookie) are inspected: exempt, printable.
  await censor.waitEvent('fet-pass', (e) => e.port === 5201);
  expect(censored, `${censored} bit/s with the censor, ${free} without`).toBeGreaterThan(free / 2);
}, 40_000);
