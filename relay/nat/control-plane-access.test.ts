// Where the relay's control plane is (an address, localhost, or a name looked up once) and what
// of it devices may reach through the relay: its port on this host, on exactly its address, or
// on a neighbour or private address the firewall otherwise closes; nothing on the internet.
import { describe, expect, it } from 'vitest';
import {
  controlPlaneOpenings,
  resolveControlPlane,
  type NameLookup,
} from './control-plane-access.js';
import { BLOCKED_IPV4, BLOCKED_IPV6 } from './networks.js';

const HOST = ['127.0.0.1', '::1', '198.18.7.12', '2001:db8:7::12', 'fe80::1', '10.120.0.4'];
/** Closed to devices: the non-global ranges and the uplink's subnet. */
const CLOSED = [...BLOCKED_IPV4, ...BLOCKED_IPV6, '198.18.7.0/24'];

const names: Record<string, string[]> = {
  'ferry.example': ['198.18.7.12', '2001:db8:7::12'],
  'control.internal': ['10.120.0.9'],
  'api.example': ['203.0.113.80', '2001:db8:99::80'],
  'debian-host': ['127.0.1.1'],
};
const lookup: NameLookup = async (name) => {
  const found = names[name];
  if (!found)
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return found;
};

describe('resolveControlPlane', () => {
  it("gives every address of the URL's host and its port, the scheme's by default", async () => {
    for (const [url, port, addresses] of [
      ['https://ferry.example', 443, ['198.18.7.12', '2001:db8:7::12']],
      ['http://FERRY.example:8080/api/v1', 8080, ['198.18.7.12', '2001:db8:7::12']],
      ['https://198.18.7.12:8443', 8443, ['198.18.7.12']],
      ['https://[2001:db8:7::12]', 443, ['2001:db8:7::12']],
      ['http://localhost:8080', 8080, ['127.0.0.1', '::1']],
      ['http://ferry.localhost', 80, ['127.0.0.1', '::1']],
    ] as const)
      expect(await resolveControlPlane(url, lookup), url).toMatchObject({
        port,
        addresses,
      });
  });

  it('says why when the URL is none or its name does not resolve', async () => {
    await expect(resolveControlPlane('not a url', lookup)).rejects.toThrow(/not a URL/);
    await expect(resolveControlPlane('ftp://ferry.example', lookup)).rejects.toThrow(/http/);
    await expect(resolveControlPlane('https://gone.example', lookup)).rejects.toThrow(
      'gone.example did not resolve (ENOTFOUND)',
    );
    await expect(resolveControlPlane('https://ferry.example', async () => [])).rejects.toThrow(
      /no address/,
    );
  });

  it("resolves with the system's resolver by default", async () => {
    expect((await resolveControlPlane('http://127.0.0.1:1')).addresses).toEqual(['127.0.0.1']);
    expect((await resolveControlPlane('http://localhost:1')).addresses).toContain('127.0.0.1');
  });
});

describe('controlPlaneOpenings', () => {
  const open = async (url: string) =>
    controlPlaneOpenings(await resolveControlPlane(url, lookup), HOST, CLOSED);

  it('opens the port on exactly the addresses of this host a name or an address gives', async () => {
    expect(await open('https://ferry.example')).toEqual({
      port: 443,
      onHost: ['198.18.7.12', '2001:db8:7::12'],
      beyond: [],
    });
    expect(await open('https://[2001:db8:7:0::12]:9443')).toEqual({
      port: 9443,
      onHost: ['2001:db8:7::12'],
      beyond: [],
    });
    expect(await open('https://10.120.0.4:8443')).toEqual({
      port: 8443,
      onHost: ['10.120.0.4'],
      beyond: [],
    });
  });

  it('opens the port on every address of this host for a control plane on loopback', async () => {
    for (const url of [
      'http://127.0.0.1:8080',
      'http://127.0.0.53:8080',
      'http://[::1]:8080',
      'http://localhost:8080',
      'https://debian-host:8080',
      'http://[::ffff:127.0.0.1]:8080',
    ])
      expect(await open(url), url).toEqual({ port: 8080, onHost: 'any', beyond: [] });
  });

  it('opens the port of a neighbour on the uplink or of a private network, and only that', async () => {
    expect(await open('https://198.18.7.40:8443')).toEqual({
      port: 8443,
      onHost: [],
      beyond: ['198.18.7.40'],
    });
    expect(await open('https://control.internal')).toEqual({
      port: 443,
      onHost: [],
      beyond: ['10.120.0.9'],
    });
    expect(await open('https://[fd00::9]')).toEqual({ port: 443, onHost: [], beyond: ['fd00::9'] });
    // An IPv4-mapped address is the IPv4 one.
    expect(await open('https://[::ffff:10.120.0.9]')).toEqual({
      port: 443,
      onHost: [],
      beyond: ['10.120.0.9'],
    });
  });

  it('opens nothing for a control plane on the internet, nor on link-local', async () => {
    for (const url of ['https://api.example', 'https://203.0.113.80', 'http://169.254.169.254'])
      expect(await open(url), url).toEqual({
        port: url.startsWith('https') ? 443 : 80,
        onHost: [],
        beyond: [],
      });
  });
});
