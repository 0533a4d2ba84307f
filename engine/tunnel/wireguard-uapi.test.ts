// The UAPI text the client writes and reads, checked against what Debian's wireguard-go accepts
// and answers (the get=1 sample below was captured from it), and one exchange on a real socket.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { TEST_KEYS } from './plans.fake.js';
import {
  answerEnd,
  formatClientSet,
  keyFromHex,
  keyToHex,
  parsePeers,
  uapiEndpoint,
  uapiExchange,
  UapiError,
} from './wireguard-uapi.js';

const NODE_HEX = 'f1fd4f4f376133c4ca5c1bd0efb15a041df1a283f18a8e6656f748d6d0f1d971';
const DEVICE_HEX = '10aac25bf25f0b170bcbd6ee588442e907e7df4509c250a9d19951a8c1e00c6f';

describe('keys', () => {
  it('turn base64 into UAPI hex and back', () => {
    expect(keyToHex(TEST_KEYS.nodeWireguard)).toBe(NODE_HEX);
    expect(keyToHex(TEST_KEYS.devicePrivate)).toBe(DEVICE_HEX);
    expect(keyFromHex(NODE_HEX)).toBe(TEST_KEYS.nodeWireguard);
  });

  it('refuse anything that is not 32 bytes', () => {
    expect(() => keyToHex('AAAA')).toThrow(TypeError);
    expect(() => keyToHex(`${TEST_KEYS.nodeWireguard}\nfwmark=0`)).toThrow(TypeError);
    expect(() => keyFromHex('00')).toThrow(TypeError);
  });
});

describe('endpoints', () => {
  it('are address:port, IPv6 in brackets', () => {
    expect(uapiEndpoint('192.0.2.10', 51820)).toBe('192.0.2.10:51820');
    expect(uapiEndpoint('2001:db8::1', 51820)).toBe('[2001:db8::1]:51820');
  });

  it('refuse host names and bad ports (UAPI takes addresses only)', () => {
    expect(() => uapiEndpoint('relay.example', 51820)).toThrow(TypeError);
    expect(() => uapiEndpoint('192.0.2.10', 0)).toThrow(TypeError);
  });
});

describe('the set request', () => {
  it('makes the node the one peer, with our key, mark, endpoint, allowed IPs and keepalive', () => {
    const text = formatClientSet({
      privateKey: TEST_KEYS.devicePrivate,
      fwmark: 26213,
      peer: {
        publicKey: TEST_KEYS.nodeWireguard,
        endpoint: '192.0.2.10:51820',
        allowedIps: ['0.0.0.0/0', '::/0'],
        persistentKeepaliveSeconds: 25,
      },
    });
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

  it('refuses a value that would start another line', () => {
    const peer = {
      publicKey: TEST_KEYS.nodeWireguard,
      endpoint: '192.0.2.10:51820',
      allowedIps: ['0.0.0.0/0\nremove=true'],
      persistentKeepaliveSeconds: 25,
    };
    expect(() => formatClientSet({ privateKey: TEST_KEYS.devicePrivate, fwmark: 1, peer })).toThrow(
      TypeError,
    );
  });
});

// What wireguard-go 0.0.2023 answered to get=1 after the set above.
const GET_ANSWER = `private_key=${DEVICE_HEX}
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

describe('the get answer', () => {
  it('ends with errno and a blank line', () => {
    expect(answerEnd('listen_port=1\n')).toBeNull();
    expect(answerEnd('errno=0\n\n')).toEqual({ body: '', errno: 0 });
    expect(answerEnd('errno=-22\n\n')).toEqual({ body: '', errno: -22 });
    expect(answerEnd(GET_ANSWER)?.errno).toBe(0);
  });

  it('tells the peer’s last handshake and byte counts', () => {
    const { body } = answerEnd(GET_ANSWER)!;
    expect(parsePeers(body)).toEqual([
      {
        publicKey: TEST_KEYS.nodeWireguard,
        lastHandshakeMs: 1_700_000_000_250,
        rxBytes: 920,
        txBytes: 1240,
      },
    ]);
  });

  it('has no handshake time before the first handshake', () => {
    const body = `public_key=${NODE_HEX}\nlast_handshake_time_sec=0\nlast_handshake_time_nsec=0\n`;
    expect(parsePeers(body)[0]?.lastHandshakeMs).toBeNull();
    expect(parsePeers('listen_port=1\n')).toEqual([]);
  });
});

describe('an exchange on a unix socket', () => {
  let dir: string | undefined;
  let server: net.Server | undefined;
  afterEach(() => {
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const serve = async (answer: (request: string) => string) => {
    dir = mkdtempSync(path.join(tmpdir(), 'ferry-uapi-'));
    const socketPath = path.join(dir, 'fyt0.sock');
    server = net.createServer((c) => {
      let text = '';
      c.on('data', (d) => {
        text += d.toString();
        if (text.endsWith('\n\n')) c.end(answer(text));
      });
    });
    await new Promise<void>((r) => server!.listen(socketPath, r));
    return socketPath;
  };

  it('sends the request and resolves with the body of an errno=0 answer', async () => {
    const socketPath = await serve((req) =>
      req === 'get=1\n\n' ? `public_key=${NODE_HEX}\nerrno=0\n\n` : 'errno=1\n\n',
    );
    expect(await uapiExchange(socketPath, 'get=1\n\n', 2_000)).toBe(`public_key=${NODE_HEX}\n`);
  });

  it('rejects with the errno wireguard-go answered', async () => {
    const socketPath = await serve(() => 'errno=-22\n\n');
    const e = await uapiExchange(socketPath, 'set=1\nbogus=1\n\n', 2_000).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UapiError);
    expect((e as UapiError).errno).toBe(-22);
  });

  it('rejects with ENOENT when there is no socket yet', async () => {
    const e = await uapiExchange('/nonexistent/fyt0.sock', 'get=1\n\n', 2_000).catch(
      (x: unknown) => x,
    );
    expect((e as UapiError).errno).toBe('ENOENT');
  });
});
