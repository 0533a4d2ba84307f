// The UAPI text the relay and the engine write and read, per https://www.wireguard.com/xplatform/
// and as Debian's wireguard-go accepts and answers it (the captured reply below).
import { describe, expect, it } from 'vitest';

import {
  formatUapiSet,
  parseUapiGet,
  uapiAnswerEnd,
  UapiError,
  uapiKeyFromHex,
  uapiKeyToHex,
} from './uapi-text.js';

// A device's private key and a node's public key, in both forms (checked with `wg`).
const DEVICE_PRIVATE = 'EKrCW/JfCxcLy9buWIRC6Qfn30UJwlCp0ZlRqMHgDG8=';
const DEVICE_HEX = '10aac25bf25f0b170bcbd6ee588442e907e7df4509c250a9d19951a8c1e00c6f';
const NODE_PUBLIC = '8f1PTzdhM8TKXBvQ77FaBB3xooPxio5mVvdI1tDx2XE=';
const NODE_HEX = 'f1fd4f4f376133c4ca5c1bd0efb15a041df1a283f18a8e6656f748d6d0f1d971';

/** A key of 32 bytes `n`, and its hex. */
const key = (n: number) => btoa(String.fromCharCode(...new Array<number>(32).fill(n)));
const keyHex = (n: number) => n.toString(16).padStart(2, '0').repeat(32);

function refusal(fn: () => unknown): UapiError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UapiError);
    return e as UapiError;
  }
  throw new Error('expected a UapiError');
}

describe('keys', () => {
  it('turn base64 into UAPI hex and back', () => {
    expect(uapiKeyToHex(NODE_PUBLIC)).toBe(NODE_HEX);
    expect(uapiKeyToHex(DEVICE_PRIVATE)).toBe(DEVICE_HEX);
    expect(uapiKeyFromHex(NODE_HEX)).toBe(NODE_PUBLIC);
    expect(uapiKeyFromHex(DEVICE_HEX)).toBe(DEVICE_PRIVATE);
    for (const n of [0, 1, 0x7f, 0xff]) {
      expect(uapiKeyToHex(key(n))).toBe(keyHex(n));
      expect(uapiKeyFromHex(keyHex(n))).toBe(key(n));
    }
  });

  it('refuse anything that is not 32 bytes', () => {
    expect(() => uapiKeyToHex('AAAA')).toThrow(TypeError);
    expect(() => uapiKeyToHex(`${NODE_PUBLIC}\nfwmark=0`)).toThrow(TypeError);
    // 32 bytes, but not canonical base64 (stray bits in the last character).
    expect(() => uapiKeyToHex(`${NODE_PUBLIC.slice(0, 42)}F=`)).toThrow(TypeError);
    expect(() => uapiKeyFromHex('00')).toThrow(TypeError);
    expect(() => uapiKeyFromHex(NODE_HEX.toUpperCase())).toThrow(TypeError);
  });
});

describe('the set request', () => {
  it('makes the node the client’s one peer, with its key, mark, endpoint, allowed IPs and keepalive', () => {
    const text = formatUapiSet({ privateKey: DEVICE_PRIVATE, fwmark: 26213, replacePeers: true }, [
      {
        kind: 'upsert',
        peer: {
          publicKey: NODE_PUBLIC,
          endpoint: '192.0.2.10:51820',
          allowedIps: ['0.0.0.0/0', '::/0'],
          persistentKeepaliveSeconds: 25,
        },
      },
    ]);
    expect(text).toBe(
      [
        'set=1',
        `private_key=${DEVICE_HEX}`,
        'fwmark=26213',
        'replace_peers=true',
        `public_key=${NODE_HEX}`,
        'endpoint=192.0.2.10:51820',
        'persistent_keepalive_interval=25',
        'replace_allowed_ips=true',
        'allowed_ip=0.0.0.0/0',
        'allowed_ip=::/0',
        '',
        '',
      ].join('\n'),
    );
  });

  it('sets a relay’s port and adds and removes peers, as WireGuard expects', () => {
    const text = formatUapiSet({ privateKey: key(1), listenPort: 51820 }, [
      { kind: 'upsert', peer: { publicKey: key(2), allowedIps: ['10.64.0.2/32'] } },
      { kind: 'remove', publicKey: key(3) },
    ]);
    expect(text).toBe(
      [
        'set=1',
        `private_key=${keyHex(1)}`,
        'listen_port=51820',
        `public_key=${keyHex(2)}`,
        'replace_allowed_ips=true',
        'allowed_ip=10.64.0.2/32',
        `public_key=${keyHex(3)}`,
        'remove=true',
        '',
        '',
      ].join('\n'),
    );
    expect(formatUapiSet({})).toBe('set=1\n\n');
  });

  it('refuses a value that would start another line', () => {
    const peer = {
      publicKey: NODE_PUBLIC,
      endpoint: '192.0.2.10:51820',
      allowedIps: ['0.0.0.0/0\nremove=true'],
      persistentKeepaliveSeconds: 25,
    };
    expect(() => formatUapiSet({}, [{ kind: 'upsert', peer }])).toThrow(TypeError);
    const endpoint = { ...peer, allowedIps: [], endpoint: '192.0.2.10:1\nremove=true' };
    expect(() => formatUapiSet({}, [{ kind: 'upsert', peer: endpoint }])).toThrow(TypeError);
    expect(() =>
      formatUapiSet({}, [{ kind: 'remove', publicKey: `${NODE_PUBLIC}\nremove=true` }]),
    ).toThrow(TypeError);
  });

  it('refuses numbers out of UAPI’s ranges', () => {
    const peer = { publicKey: NODE_PUBLIC, allowedIps: [] };
    expect(() => formatUapiSet({ fwmark: 2 ** 32 })).toThrow('a firewall mark is 0..2^32-1');
    expect(() => formatUapiSet({ fwmark: -1 })).toThrow(TypeError);
    expect(() => formatUapiSet({ listenPort: 65536 })).toThrow('a listen port is 0..65535');
    expect(() =>
      formatUapiSet({}, [{ kind: 'upsert', peer: { ...peer, persistentKeepaliveSeconds: 1.5 } }]),
    ).toThrow('a keepalive interval is 0..65535 seconds');
  });
});

// What wireguard-go 0.0.2023 answered to get=1 after the client's set above.
const CAPTURED_REPLY = `private_key=${DEVICE_HEX}
listen_port=47755
fwmark=26213
public_key=${NODE_HEX}
preshared_key=0000000000000000000000000000000000000000000000000000000000000000
protocol_version=1
endpoint=192.0.2.10:51820
last_handshake_time_sec=1700000000
last_handshake_time_nsec=250000000
tx_bytes=1240
rx_bytes=920
persistent_keepalive_interval=25
allowed_ip=0.0.0.0/0
allowed_ip=::/0
errno=0

`;

describe('the end of a reply', () => {
  it('is errno and a blank line', () => {
    expect(uapiAnswerEnd('listen_port=1\n')).toBeNull();
    expect(uapiAnswerEnd('errno=0\n')).toBeNull();
    expect(uapiAnswerEnd('errno=0\n\n')).toEqual({ body: '', errno: 0 });
    expect(uapiAnswerEnd('errno=-22\n\n')).toEqual({ body: '', errno: -22 });
    expect(uapiAnswerEnd(CAPTURED_REPLY)).toEqual({
      body: CAPTURED_REPLY.slice(0, CAPTURED_REPLY.indexOf('errno=')),
      errno: 0,
    });
  });

  it('is found in a reply’s tail alone', () => {
    const tail = CAPTURED_REPLY.slice(-20);
    expect(uapiAnswerEnd(tail)?.errno).toBe(0);
    expect(tail.length - uapiAnswerEnd(tail)!.body.length).toBe('errno=0\n\n'.length);
  });
});

describe('the get reply', () => {
  /** A peer of which the reply tells the key alone. */
  const peerWithNothing = (publicKey: string) => ({
    publicKey,
    endpoint: null,
    allowedIps: [],
    persistentKeepaliveSeconds: 0,
    lastHandshakeMs: null,
    rxBytes: 0,
    txBytes: 0,
  });

  it('tells the device’s port and mark and the peer’s endpoint, handshake, bytes, keepalive and allowed IPs', () => {
    const whole = parseUapiGet(CAPTURED_REPLY);
    expect(whole).toEqual({
      listenPort: 47755,
      fwmark: 26213,
      peers: [
        {
          publicKey: NODE_PUBLIC,
          endpoint: '192.0.2.10:51820',
          allowedIps: ['0.0.0.0/0', '::/0'],
          persistentKeepaliveSeconds: 25,
          lastHandshakeMs: 1_700_000_000_250,
          rxBytes: 920,
          txBytes: 1240,
        },
      ],
    });
    // The body alone (as the transports hand it on) reads the same; the private key is not kept.
    expect(parseUapiGet(uapiAnswerEnd(CAPTURED_REPLY)!.body)).toEqual(whole);
    expect(JSON.stringify(whole)).not.toContain(DEVICE_HEX);
  });

  it('reads several peers, each with its own allowed IPs, in the order of the reply', () => {
    // The example reply of https://www.wireguard.com/xplatform/ (keys and addresses ours).
    const reply = [
      `private_key=${keyHex(9)}`,
      'listen_port=12912',
      `public_key=${keyHex(1)}`,
      `preshared_key=${keyHex(5)}`,
      'allowed_ip=10.64.4.4/32',
      'endpoint=[2001:db8::33%2]:51820',
      `public_key=${keyHex(2)}`,
      'tx_bytes=38333',
      'rx_bytes=2224',
      'allowed_ip=10.64.4.6/32',
      'persistent_keepalive_interval=111',
      'endpoint=198.51.100.19:3233',
      `public_key=${keyHex(3)}`,
      'endpoint=203.0.113.39:51820',
      'allowed_ip=10.64.4.10/32',
      'allowed_ip=10.64.4.11/32',
      'allowed_ip=fd66:6572:7279::a/128',
      'tx_bytes=1212111',
      'rx_bytes=1929999999',
      'protocol_version=1',
      'errno=0',
      '',
      '',
    ].join('\n');
    const { listenPort, fwmark, peers } = parseUapiGet(reply);
    expect(listenPort).toBe(12912);
    expect(fwmark).toBeNull();
    expect(peers.map((p) => p.publicKey)).toEqual([key(1), key(2), key(3)]);
    expect(peers.map((p) => p.allowedIps)).toEqual([
      ['10.64.4.4/32'],
      ['10.64.4.6/32'],
      ['10.64.4.10/32', '10.64.4.11/32', 'fd66:6572:7279::a/128'],
    ]);
    expect(peers.map((p) => p.endpoint)).toEqual([
      '[2001:db8::33%2]:51820',
      '198.51.100.19:3233',
      '203.0.113.39:51820',
    ]);
    expect(peers[1]).toMatchObject({
      txBytes: 38333,
      rxBytes: 2224,
      persistentKeepaliveSeconds: 111,
    });
    expect(peers[2]).toMatchObject({ txBytes: 1212111, rxBytes: 1929999999 });
  });

  it('gives a peer’s missing fields their empty values, and no handshake before the first', () => {
    const { peers } = parseUapiGet(
      `public_key=${keyHex(1)}\n` +
        `public_key=${keyHex(2)}\nlast_handshake_time_sec=0\nlast_handshake_time_nsec=0\n` +
        `public_key=${keyHex(3)}\nlast_handshake_time_sec=1700000001\n` +
        `public_key=${keyHex(4)}\nlast_handshake_time_nsec=999999999\n`,
    );
    expect(peers[0]).toEqual(peerWithNothing(key(1)));
    expect(peers.map((p) => p.lastHandshakeMs)).toEqual([null, null, 1_700_000_001_000, 999]);
    expect(parseUapiGet('listen_port=1\n')).toEqual({ listenPort: 1, fwmark: null, peers: [] });
    expect(parseUapiGet('')).toEqual({ listenPort: null, fwmark: null, peers: [] });
    expect(parseUapiGet('errno=0\n\n')).toEqual({ listenPort: null, fwmark: null, peers: [] });
  });

  it('skips keys it does not know', () => {
    const { peers } = parseUapiGet(
      `private_key=${keyHex(9)}\nfuture_device_key=1\npublic_key=${keyHex(1)}\nfuture_peer_key=x\nrx_bytes=5\n`,
    );
    expect(peers).toMatchObject([{ publicKey: key(1), rxBytes: 5 }]);
    // Not even names that objects carry.
    const odd = parseUapiGet(`constructor=1\npublic_key=${keyHex(1)}\ntoString=2\n__proto__=3\n`);
    expect(odd.peers).toEqual([peerWithNothing(key(1))]);
  });

  it('refuses a malformed line, naming its number and never its value', () => {
    const secret = keyHex(0xab);
    const cases: [string, string][] = [
      [`private_key=${secret}\nlisten_port=1\n${secret}\n`, 'line 3: not a key=value line'],
      [`=${secret}\n`, 'line 1: not a key=value line'],
      [`public_key=${keyHex(1)}\nrx_bytes=${secret}\n`, 'line 2: rx_bytes is not a number'],
      [`public_key=${keyHex(1)}\ntx_bytes=-1\n`, 'line 2: tx_bytes is not a number'],
      [`listen_port=\n`, 'line 1: listen_port is not a number'],
      [`public_key=${secret.slice(2)}\n`, 'line 1: public_key is not 64 hex digits'],
      [`public_key=${secret.toUpperCase()}\n`, 'line 1: public_key is not 64 hex digits'],
      ['allowed_ip=10.64.0.2/32\n', 'line 1: allowed_ip before any public_key'],
      [`preshared_key=${secret}\n`, 'line 1: preshared_key before any public_key'],
      [`public_key=${keyHex(1)}\nfwmark=1\n`, 'line 2: fwmark after the first peer'],
      [
        `public_key=${keyHex(1)}\nlast_handshake_time_nsec=1000000000\n`,
        'line 2: last_handshake_time_nsec is not below one second',
      ],
      ['errno=zero\n\n', 'line 1: errno is not a number'],
      ['errno=0\n\nlisten_port=1\n', 'line 3: text after the errno line'],
    ];
    for (const [reply, why] of cases) {
      const e = refusal(() => parseUapiGet(reply));
      expect(e.errno).toBe('EPROTO');
      expect(e.message).toBe(`UAPI get reply, ${why}`);
      expect(e.message).not.toContain(secret);
      expect(e.message).not.toContain(secret.toUpperCase());
    }
  });

  it('refuses a reply that ends with an errno other than 0', () => {
    const e = refusal(() => parseUapiGet('errno=-22\n\n'));
    expect(e.errno).toBe(-22);
    expect(e.message).toBe('UAPI get refused (errno -22)');
  });
});
