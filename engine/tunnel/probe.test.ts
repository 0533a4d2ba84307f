// The WireGuard round-trip probe: ping's argv, its output, and the node's address in the tunnel.
import { describe, expect, it } from 'vitest';

import { FerryError } from '../errors.js';
import { testAnswer } from './plans.fake.js';
import {
  burstArgs,
  gatewayOf,
  parseBurst,
  parsePingRtt,
  pingArgs,
  probeRoundTrip,
} from './probe.js';

describe('the probe', () => {
  it('pings once, with a one-second wait, on the tunnel interface', () => {
    expect(pingArgs('fytmain0a1b2c', '10.64.0.1')).toEqual([
      '-n',
      '-c',
      '1',
      '-W',
      '1',
      '-I',
      'fytmain0a1b2c',
      '10.64.0.1',
    ]);
    expect(() => pingArgs('-x', '10.64.0.1')).toThrow(TypeError);
    expect(() => pingArgs('fyt0', 'relay.example')).toThrow(TypeError);
  });

  it('reads the round trip from iputils ping output, none when nothing came back', () => {
    const answered = `PING 10.64.0.1 (10.64.0.1) from 10.64.0.7 fytmain0a1b2c: 56(84) bytes of data.
64 bytes from 10.64.0.1: icmp_seq=1 ttl=64 time=0.412 ms

--- 10.64.0.1 ping statistics ---
1 packets transmitted, 1 received, 0% packet loss, time 0ms
rtt min/avg/max/mdev = 0.412/0.412/0.412/0.000 ms
`;
    expect(parsePingRtt(answered)).toBe(0.412);
    expect(
      parsePingRtt('1 packets transmitted, 0 received, 100% packet loss, time 0ms\n'),
    ).toBeNull();
  });

  it('is null on a ping that failed, and a tunnel-failed error when ping is missing', async () => {
    const silent = async () => ({ exitCode: 1, stdout: '', stderr: '' });
    expect(await probeRoundTrip(silent, 'fyt0', '10.64.0.1')).toBeNull();
    const missing = async () => {
      throw new FerryError('os-command-failed', 'ping is not installed');
    };
    const e = await probeRoundTrip(missing, 'fyt0', '10.64.0.1').catch((x: unknown) => x);
    expect((e as FerryError).code).toBe('tunnel-failed');
  });

  it('aims at the first address of the tunnel block, or the answer’s resolver outside it', () => {
    expect(gatewayOf(testAnswer('wireguard'))).toBe('10.64.0.1');
    const other = testAnswer('wireguard');
    other.tunnel = { ...other.tunnel, ipv4: '172.16.5.9', dns: ['fd00::53', '172.16.0.1'] };
    expect(gatewayOf(other)).toBe('172.16.0.1');
    other.tunnel.dns = [];
    expect(() => gatewayOf(other)).toThrow(FerryError);
  });

  it('a burst: echoes 10 ms apart on the tunnel interface, bounded, and its summary read', () => {
    expect(burstArgs('fytmain0a1b2c', '10.64.0.1', 20, 1000)).toEqual([
      '-n',
      '-q',
      '-c',
      '20',
      '-i',
      '0.01',
      '-s',
      '1000',
      '-W',
      '1',
      '-w',
      '3',
      '-I',
      'fytmain0a1b2c',
      '10.64.0.1',
    ]);
    expect(() => burstArgs('fytmain0a1b2c', '10.64.0.1', 1000, 1000)).toThrow(TypeError);
    expect(() => burstArgs('fytmain0a1b2c', '10.64.0.1', 20, 9000)).toThrow(TypeError);
    expect(() => burstArgs('-x', '10.64.0.1', 20, 1000)).toThrow(TypeError);
    const lossy = `PING 10.64.0.1 (10.64.0.1) from 10.64.0.7 fytmain0a1b2c: 1000(1028) bytes of data.

--- 10.64.0.1 ping statistics ---
20 packets transmitted, 3 received, 85% packet loss, time 193ms
rtt min/avg/max/mdev = 0.310/0.402/0.512/0.081 ms
`;
    expect(parseBurst(lossy)).toEqual({ sent: 20, answered: 3 });
    expect(parseBurst('20 packets transmitted, 0 received, 100% packet loss')).toEqual({
      sent: 20,
      answered: 0,
    });
    expect(parseBurst('ping: connect: Network is unreachable')).toBeNull();
  });
});
