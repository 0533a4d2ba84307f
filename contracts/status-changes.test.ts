// When the faces read the regions and the configuration again after a status: the one rule.
import { describe, expect, it } from 'vitest';
import { idleStatus, type LocalStatus } from './local-api.js';
import { configMayHaveChanged, regionsMayHaveChanged, sessionChanged } from './status-changes.js';

const idle = idleStatus(true, true);
const connected = (node: string, latency: string, region = 'asia-east'): LocalStatus => ({
  ...idle,
  status: 'connected',
  latency,
  region,
  node: { id: node, region, endpoint: `${node}.example:51820` },
});

describe('regionsMayHaveChanged', () => {
  it('says yes when the tunnel comes up or goes down, moves, or the session changes', () => {
    const connecting: LocalStatus = { ...idle, status: 'connecting', region: 'asia-east' };
    expect(regionsMayHaveChanged(idle, connecting)).toBe(true);
    expect(regionsMayHaveChanged(connecting, connected('hk-1', '12ms'))).toBe(true);
    expect(regionsMayHaveChanged(connected('hk-1', '12ms'), connected('hk-2', '12ms'))).toBe(true);
    expect(
      regionsMayHaveChanged(connected('hk-1', '12ms'), connected('zrh-1', '40ms', 'global')),
    ).toBe(true);
    const disconnecting: LocalStatus = { ...connected('hk-1', '12ms'), status: 'disconnecting' };
    expect(regionsMayHaveChanged(disconnecting, idle)).toBe(true);
    expect(regionsMayHaveChanged(idle, idleStatus(false, true))).toBe(true);
    expect(regionsMayHaveChanged(idleStatus(true, false), idle)).toBe(true);
  });

  it('says no for a new latency sample, a notice or a protection alone', () => {
    expect(regionsMayHaveChanged(connected('hk-1', '12ms'), connected('hk-1', '15ms'))).toBe(false);
    const noticed = {
      ...connected('hk-1', '12ms'),
      notices: [{ code: 'failover', message: 'moved' }],
    };
    expect(regionsMayHaveChanged(connected('hk-1', '12ms'), noticed)).toBe(false);
    const killSwitchOff: LocalStatus = {
      ...connected('hk-1', '12ms'),
      protection: { ...idle.protection, kill_switch: 'off' },
    };
    expect(regionsMayHaveChanged(connected('hk-1', '12ms'), killSwitchOff)).toBe(false);
  });
});

describe('configMayHaveChanged', () => {
  it('says yes when a protection or the session changes, no for the connection alone', () => {
    const off: LocalStatus = { ...idle, protection: { ...idle.protection, kill_switch: 'off' } };
    expect(configMayHaveChanged(idle, off)).toBe(true);
    const dns: LocalStatus = { ...idle, protection: { ...idle.protection, dns: ['9.9.9.9'] } };
    expect(configMayHaveChanged(idle, dns)).toBe(true);
    expect(configMayHaveChanged(idleStatus(true, false), idle)).toBe(true);
    expect(configMayHaveChanged(idle, connected('hk-1', '12ms'))).toBe(false);
    expect(configMayHaveChanged(connected('hk-1', '12ms'), connected('hk-1', '15ms'))).toBe(false);
  });

  it('a session change is signing in or out, or a service set up or forgotten', () => {
    expect(sessionChanged(idle, idleStatus(false, true))).toBe(true);
    expect(sessionChanged(idle, idleStatus(true, false))).toBe(true);
    expect(sessionChanged(idle, connected('hk-1', '12ms'))).toBe(false);
  });
});
