// No leak over any transport (issue 20, done-when 6): connected over UDP (WireGuard), Ferry over
// TCP and Ferry inside TLS in turn (obfuscation off, tcp, tls), with traffic of every kind running
// and eth0 captured, nothing leaves the laptop but to the node in use (its endpoints: no probe to
// the other relay, no other destination), the control plane and the domestic set; and the status
// names the transport and the node's port that carries it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Transport } from '../../contracts/index.js';
import { ProtectionBed, TLS_PORT } from './protection-kit.js';

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('protection: no leak over any transport', () => {
  let p: ProtectionBed;
  beforeAll(async () => {
    p = await ProtectionBed.start({ tls: true });
    p.setUp();
  }, 180_000);
  afterAll(async () => {
    await p?.stop();
  }, 60_000);

  const cases: [string, Transport, string][] = [
    ['off', 'udp', ':51820'],
    ['tcp', 'tcp', ':51900'],
    ['tls', 'tls', `:${TLS_PORT}`],
  ];
  for (const [obfuscation, transport, port] of cases) {
    it(`obfuscation ${obfuscation}: the tunnel runs over ${transport}, and nothing leaves but to the node in use`, async () => {
      p.laptop.human('config', 'set', 'obfuscation', obfuscation);
      const connected = p.laptop.json('connect', '--region', 'work');
      expect(connected).toMatchObject({ status: 'connected', transport });
      expect(connected.transport_reason.code).toBe('chosen');
      expect(connected.node.endpoint.endsWith(port)).toBe(true);
      const relay = p.currentRelay();
      const watch = await p.watch();
      await settle(3_000);
      expect(p.bed.echoFrom('laptop', 3)).toBe(relay.address);
      const result = await watch.stop();
      // Only the relay in use: a probe to the other one would be a leak here.
      expect(p.leaks(result, [relay])).toEqual([]);
      expect(result.probes.tcp?.successes).toBeGreaterThan(3);
      expect(result.probes.dnsSystem?.successes).toBeGreaterThan(3);
      p.laptop.human('disconnect');
      expect(p.laptop.leftovers()).toEqual([]);
    }, 90_000);
  }
});
