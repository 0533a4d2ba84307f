import { describe, expect, it } from 'vitest';

import { FakeResolver } from '../os/effects.fake.js';
import type { DnsProxy, ProxyRoutes } from './dns-proxy.js';
import { EngineDns } from './engine-dns.js';

const ROUTES: ProxyRoutes = { tunnel: ['10.64.0.1'], home: ['192.168.1.1'], isHome: null };

/** A proxy that starts or refuses as told, and records what it was asked. */
function proxy(refuse?: Error) {
  const calls: string[] = [];
  const fake = {
    address: '127.102.121.53',
    async use(routes: ProxyRoutes) {
      calls.push(`use ${routes.tunnel.join(',')}`);
      if (refuse) throw refuse;
    },
    async stop() {
      calls.push('stop');
    },
    setRules() {
      calls.push('rules');
    },
  };
  return { calls, proxy: fake as unknown as DnsProxy };
}

describe('EngineDns', () => {
  it('points the system resolver at the engine’s, and puts it back with the engine’s stopped', async () => {
    const resolver = new FakeResolver();
    const p = proxy();
    let cleared = 0;
    const dns = new EngineDns({
      resolver,
      proxy: p.proxy,
      ruleAddresses: { clear: () => void cleared++ },
    });
    expect(await dns.use(ROUTES, 'fytmain0a1b2c')).toBeNull();
    expect(resolver.servers).toEqual(['127.102.121.53']);
    expect(dns.inUse).toBe('engine');
    await dns.restore();
    expect(resolver.servers).toBeNull();
    expect(dns.inUse).toBeNull();
    expect(p.calls).toEqual(['use 10.64.0.1', 'stop']);
    expect(cleared).toBe(1);
  });

  it('falls back to the tunnel’s resolver, with a notice that names no address, when its own cannot start', async () => {
    const resolver = new FakeResolver();
    const busy = Object.assign(
      new Error('the DNS resolver cannot listen on port 53: EADDRINUSE'),
      {},
    );
    const p = proxy(busy);
    const dns = new EngineDns({ resolver, proxy: p.proxy, ruleAddresses: { clear: () => {} } });
    const notice = await dns.use(ROUTES, 'fytmain0a1b2c');
    expect(notice?.code).toBe('dns-split-unavailable');
    expect(notice?.message).not.toMatch(/\d+\.\d+\.\d+\.\d+/);
    expect(resolver.servers).toEqual(['10.64.0.1']);
    expect(dns.inUse).toBe('tunnel');
    expect(p.calls).toEqual(['use 10.64.0.1', 'stop']);
  });

  it('without a proxy (unit tests), asks the tunnel’s resolver and knows no home resolver', async () => {
    const resolver = new FakeResolver();
    resolver.home = ['192.168.1.1'];
    const dns = new EngineDns({ resolver, proxy: null, ruleAddresses: { clear: () => {} } });
    expect(await dns.homeServers()).toEqual([]);
    expect(await dns.use(ROUTES, 'fytmain0a1b2c')).toBeNull();
    expect(resolver.servers).toEqual(['10.64.0.1']);
  });

  it('reads the home resolvers from the system resolver, none when it cannot say', async () => {
    const resolver = new FakeResolver();
    resolver.home = ['192.168.1.1'];
    const dns = new EngineDns({
      resolver,
      proxy: proxy().proxy,
      ruleAddresses: { clear: () => {} },
    });
    expect(await dns.homeServers()).toEqual(['192.168.1.1']);
    resolver.failNext('homeServers', new Error('unreadable'));
    expect(await dns.homeServers()).toEqual([]);
  });
});
