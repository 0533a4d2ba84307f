// The setup the Ferry namespace tests share: per test, a TestNetwork with a server and a client
// host on its access subnet and a FerryPair between them, destroyed after the test.
import { spawnSync } from 'node:child_process';

import { afterEach, beforeAll, beforeEach } from 'vitest';

import { CLIENT, FerryPair, SERVER, SERVER_TUNNEL, requireFerryBuilt } from './ferry-process.js';
import { TestNetwork, requireTools } from './test-network.js';

export interface FerryPairTest {
  net: TestNetwork;
  ferry: FerryPair;
  /** The server's address on the access subnet. */
  serverUnderlay: string;
}

/**
 * Registers the hooks: before all, the tools and the built ferry-tun are required (missing ones
 * fail, never skip); before each test a new network and pair go to `each`; after it the network
 * is destroyed with every process in it.
 */
export function useFerryPair(tools: readonly string[], each: (setup: FerryPairTest) => void): void {
  let net: TestNetwork | undefined;
  beforeAll(() => {
    requireTools(tools);
    requireFerryBuilt();
  });
  beforeEach(() => {
    net = TestNetwork.create();
    const serverUnderlay = net.addAccessHost(SERVER).address;
    net.addAccessHost(CLIENT);
    each({ net, ferry: FerryPair.create(net, { server: SERVER, client: CLIENT }), serverUnderlay });
  });
  afterEach(async () => {
    await net?.destroyAsync();
    net = undefined;
  });
}

/** Pings SERVER_TUNNEL from the client host with these options; ping's exit status (0: replies came). */
export function pingServerTunnel(net: TestNetwork, options: readonly string[]): number | null {
  return spawnSync('ip', ['netns', 'exec', net.host(CLIENT).ns, 'ping', ...options, SERVER_TUNNEL])
    .status;
}
