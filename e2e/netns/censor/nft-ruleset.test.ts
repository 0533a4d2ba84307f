// The censor's table holds the rules of the profiles asked for and no others, and queues packets
// to the inspector only when one of its profiles is on.
import { describe, expect, it } from 'vitest';

import { censorRuleset, queueRule } from './nft-ruleset.js';
import { settings, type CensorOptions } from './profiles.js';

const rules = (o: CensorOptions, inspected: boolean) =>
  censorRuleset(settings(o, '203.0.113.0/24', 7), inspected);

describe('censor ruleset', () => {
  it('says each static profile only when asked', () => {
    const none = rules({ profiles: [] }, false);
    expect(none).toContain('elements = { 203.0.113.0/24 }');
    expect(none).not.toMatch(
      /meta l4proto udp drop|th dport|udp_slow|ct reply bytes|meta mark set/,
    );
    expect(rules({ profiles: ['udp-block'] }, false)).toMatch(
      /ip saddr @home ip daddr != @home meta l4proto udp drop/,
    );
    expect(
      rules({ profiles: ['port-block'], port: { protocol: 'tcp', port: 443 } }, false),
    ).toContain('meta l4proto tcp th dport 443 drop');
    const throttle = rules(
      { profiles: ['udp-throttle'], udpGraceSeconds: 3, udpRateKbit: 64 },
      false,
    );
    expect(throttle).toContain('add @udp_young { ct id timeout 3s }');
    expect(throttle).toContain('limit rate over 8000 bytes/second');
    // A flow begun abroad is throttled too (a relay's keepalive may open it).
    expect(throttle).toMatch(
      /ip daddr @home ip saddr != @home meta l4proto udp ct id != @udp_young meter udp_slow_in/,
    );
    const budget = rules({ profiles: ['tcp-budget'], hosting: ['198.19.5.0/24'] }, true);
    expect(budget).toContain('ct reply bytes > 16384 drop');
    expect(budget).toContain(
      'set hosting { type ipv4_addr; flags interval; elements = { 198.19.5.0/24 }; }',
    );
  });

  it('allowlist drops every foreign address but the listed prefixes; service-block the service’s', () => {
    const none = rules({ profiles: [] }, false);
    expect(none).not.toMatch(/@allow drop|@service drop/);
    const allow = rules({ profiles: ['allowlist'], allow: ['198.18.7.0/24'] }, false);
    expect(allow).toContain(
      'set allow { type ipv4_addr; flags interval; elements = { 198.18.7.0/24 }; }',
    );
    expect(allow).toContain('ip saddr @home ip daddr != @home ip daddr != @allow drop');
    expect(allow).toContain('ip daddr @home ip saddr != @home ip saddr != @allow drop');
    const service = rules(
      {
        profiles: ['service-block'],
        service: { addresses: ['198.18.0.5/32'], names: ['ferry.test'] },
      },
      true,
    );
    expect(service).toContain('elements = { 198.18.0.5/32 }');
    expect(service).toContain('ip saddr @home ip daddr != @home ip daddr @service drop');
    // Its name is read in hellos, Initials and DNS answers: those are queued.
    expect(service).toMatch(
      /udp dport 443 .*meta mark set 256[\s\S]*udp sport 53 meta mark set 256/,
    );
    expect(() => rules({ profiles: ['service-block'] }, true)).toThrow(/needs the service/);
  });

  it('marks packets for the queue only with an inspector, UDP/443 and DNS only for sni-block', () => {
    const fet = rules({ profiles: ['fet'], fetBlockSeconds: 5 }, true);
    expect(fet).toContain('ct original packets < 16 meta mark set 256');
    expect(fet).not.toContain('udp dport 443');
    expect(fet).toContain('timeout 5s');
    expect(rules({ profiles: ['sni-block'] }, true)).toMatch(
      /udp dport 443 .*meta mark set 256[\s\S]*udp sport 53 meta mark set 256/,
    );
    expect(queueRule(7)).toEqual([
      'FORWARD',
      '-m',
      'mark',
      '--mark',
      '256/256',
      '-j',
      'NFQUEUE',
      '--queue-num',
      '7',
    ]);
  });

  it('refuses an unknown profile and port-block without a port', () => {
    expect(() => settings({ profiles: ['gfw' as never] }, '203.0.113.0/24', 7)).toThrow(
      /no profile gfw/,
    );
    expect(() => settings({ profiles: ['port-block'] }, '203.0.113.0/24', 7)).toThrow(
      /needs a port/,
    );
  });
});
