// Which control-plane URLs name the relay host itself, and the port devices then reach.
import { describe, expect, it } from 'vitest';
import { localControlPort } from './local-control-plane.js';

const HOST = ['127.0.0.1', '::1', '198.18.7.12', '2001:db8:7::12', 'fe80::1'];

describe('localControlPort', () => {
  it("gives the port of a control plane on this host, the scheme's by default", () => {
    for (const [url, port] of [
      ['https://127.0.0.1:8080', 8080],
      ['https://127.0.0.53:8443/api/v1', 8443],
      ['http://localhost:8080', 8080],
      ['https://LOCALHOST', 443],
      ['http://[::1]:8080', 8080],
      ['https://198.18.7.12', 443],
      ['http://198.18.7.12', 80],
      ['https://[2001:db8:7:0::12]:9443', 9443],
    ] as const)
      expect(localControlPort(url, HOST), url).toBe(port);
  });

  it('gives null for a control plane elsewhere, by name, or a URL that is none', () => {
    for (const url of [
      'https://198.18.7.13:8080',
      'https://[2001:db8:7::13]:8080',
      'https://ferry.example',
      'https://relay-host.local:8080',
      'ftp://127.0.0.1',
      'not a url',
    ])
      expect(localControlPort(url, HOST), url).toBeNull();
  });
});
