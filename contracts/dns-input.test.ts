// The one check of a typed DNS value, before the engine sees it.
import { describe, expect, it } from 'vitest';
import { checkDnsInput } from './dns-input.js';

describe('checkDnsInput', () => {
  it('takes auto, or a resolver’s IPv4 or IPv6 address, as the configuration keeps it', () => {
    expect(checkDnsInput('AUTO')).toEqual({ ok: true, value: 'auto' });
    expect(checkDnsInput(' 9.9.9.9 ')).toEqual({ ok: true, value: '9.9.9.9' });
    expect(checkDnsInput('2620:FE::FE')).toEqual({ ok: true, value: '2620:fe::fe' });
    expect(checkDnsInput('2606:4700:4700::1111')).toEqual({
      ok: true,
      value: '2606:4700:4700::1111',
    });
  });

  it('says why not: nothing typed, no IP address, or an address no resolver has', () => {
    const problem = (t: string) => {
      const r = checkDnsInput(t);
      return r.ok ? null : r.problem;
    };
    expect(problem('')).toBe('empty');
    expect(problem('   ')).toBe('empty');
    for (const t of ['dns.quad9.net', '9.9.9', '256.1.1.1', 'nope'])
      expect(problem(t), t).toBe('not-an-address');
    for (const t of ['0.0.0.0', '255.255.255.255', '224.0.0.251', 'ff02::1', '::'])
      expect(problem(t), t).toBe('not-a-resolver');
  });
});
