// The client's check of a signed relay list: the service's own signature over the exact bytes,
// the key the client knows (not the one the list names), the expiry, the shape.
import { describe, expect, it } from 'vitest';

import type { RelayListContent } from '../../contracts/index.js';
import { checkRelayList } from './relay-list.js';
import { keyPair, signedBy } from './testing/signed-relay-list.js';

const NOW = Date.parse('2026-11-28T04:00:00Z');

const content = (expiresAt = '2026-12-05T04:00:00.000Z'): RelayListContent => ({
  version: 1,
  issued_at: '2026-11-28T04:00:00.000Z',
  expires_at: expiresAt,
  relays: [
    {
      id: 'node_tokyo',
      region: 'asia-east',
      endpoint_host: '198.18.5.11',
      wireguard_port: 51820,
      wireguard_public_key: 'wg',
      ferry_port: 51900,
      ferry_public_key: 'fy',
      tls_port: 443,
      tls_server_name: 'cover.example',
    },
  ],
});

describe('checkRelayList', () => {
  const service = keyPair();

  it('takes a list the service signed, unexpired', () => {
    expect(checkRelayList(signedBy(service, content()), service.publicKey, NOW)).toEqual({
      ok: true,
      list: content(),
    });
  });

  it('refuses a changed list, another key, an expired list, and what is not a list', () => {
    const good = signedBy(service, content());
    const changed = Buffer.from(
      Buffer.from(good.list, 'base64').toString().replace('198.18.5.11', '198.18.5.12'),
    ).toString('base64');
    expect(checkRelayList({ ...good, list: changed }, service.publicKey, NOW)).toMatchObject({
      ok: false,
      why: 'bad-signature',
    });
    // Signed by someone else, naming their key: not this service's.
    const other = keyPair();
    expect(checkRelayList(signedBy(other, content()), service.publicKey, NOW)).toMatchObject({
      ok: false,
      why: 'unknown-key',
    });
    // Signed by someone else, naming the service's key: the signature fails.
    expect(
      checkRelayList(
        { ...signedBy(other, content()), public_key: service.publicKey },
        service.publicKey,
        NOW,
      ),
    ).toMatchObject({ ok: false, why: 'bad-signature' });
    const expired = checkRelayList(
      signedBy(service, content('2026-11-28T03:59:59.000Z')),
      service.publicKey,
      NOW,
    );
    expect(expired).toEqual({
      ok: false,
      why: 'expired',
      message: 'the relay list expired on 2026-11-28: a newer one comes from the service',
    });
    for (const body of [null, {}, { list: 'x', signature: 'y' }])
      expect(checkRelayList(body, service.publicKey, NOW)).toMatchObject({ why: 'malformed' });
    expect(checkRelayList(signedBy(service, 'not json'), service.publicKey, NOW)).toMatchObject({
      why: 'malformed',
    });
    expect(
      checkRelayList(signedBy(service, { version: 2, relays: [] }), service.publicKey, NOW),
    ).toMatchObject({ why: 'malformed' });
    expect(() => checkRelayList(good, 'short', NOW)).toThrow(TypeError);
  });
});
