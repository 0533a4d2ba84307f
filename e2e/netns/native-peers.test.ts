// The real addon's peer-set binding (updatePeers, setPeers, peerStats) on a real TUN device in a test
// namespace: what the relay relies on for revocations, including the fail-closed cases.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { TestNetwork } from './test-network.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// Runs in the namespace (the built addon from dist/): one server tunnel, a series of peer changes, and
// after each the refusals and the ids the data plane holds.
const script = `
import { nativeDataPlane as plane } from ${JSON.stringify(path.join(repo, 'dist/native/index.js'))};
const key = () => plane.publicKey(plane.generatePrivateKey());
const a = { id: 'dev_a', publicKey: key(), address: '10.77.0.2' };
const b = { id: 'dev_b', publicKey: key(), address: '10.77.0.3' };
const c = { id: 'dev_c', publicKey: key(), address: '10.77.0.4' };
const t = plane.startServer({ interfaceName: 'fynp0', address: '10.77.0.1/24', privateKey: plane.generatePrivateKey(),
  listenHost: '127.0.0.1', listenPort: 51999, peers: [a, b] }, () => {});
const ids = () => t.peerStats().map((s) => s.id).sort();
// A non-canonical form of a's key (the last character's unused bits set): the native side refuses it.
const last = a.publicKey[42];
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const sloppy = a.publicKey.slice(0, 42) + alphabet[alphabet.indexOf(last) | 1] + '=';
const steps = [];
const step = (name, r) => steps.push({ name, rejected: r.rejected, ids: ids() });
step('start', { rejected: [] });
step('clash-and-remove', t.updatePeers({ upsert: [{ ...c, address: a.address }], remove: ['dev_b'] }));
step('malformed-key-for-existing-id', t.updatePeers({ upsert: [{ ...a, publicKey: 'not a key' }, c] }));
step('re-add-a', t.updatePeers({ upsert: [a] }));
step('non-canonical-key', t.updatePeers({ upsert: [{ ...a, publicKey: sloppy }, b] }));
step('set-all', t.setPeers([a, { ...b, address: 'nope' }]));
const stats = t.peerStats();
t.close();
console.log(JSON.stringify({ steps, sloppyDiffers: sloppy !== a.publicKey, stats }));
`;

describe('the native peer set', () => {
  let net: TestNetwork;
  beforeAll(() => {
    net = TestNetwork.create();
    net.addAccessHost('np');
  });
  afterAll(() => net?.destroy());

  it('applies removals always, refuses bad entries one by one, and drops their old entries', () => {
    const out = net.exec('np', ['node', '--input-type=module', '-e', script]);
    const r = JSON.parse(out.trim().split('\n').pop()!) as {
      steps: { name: string; rejected: { id: string; reason: string }[]; ids: string[] }[];
      sloppyDiffers: boolean;
      stats: { id: string; rxBytes: number; txBytes: number; handshakeAgeMs: number | null }[];
    };
    const step = (name: string) => r.steps.find((s) => s.name === name)!;
    expect(step('start').ids).toEqual(['dev_a', 'dev_b']);
    // c takes a's address: refused on its own; b's removal in the same change still applies.
    expect(step('clash-and-remove')).toMatchObject({
      rejected: [{ id: 'dev_c', reason: 'address in use by another peer' }],
      ids: ['dev_a'],
    });
    // A new key for a that cannot be read: a's old key goes too (fail closed); c gets in.
    expect(step('malformed-key-for-existing-id').rejected.map((x) => x.id)).toEqual(['dev_a']);
    expect(step('malformed-key-for-existing-id').ids).toEqual(['dev_c']);
    expect(step('re-add-a').ids).toEqual(['dev_a', 'dev_c']);
    // A non-canonical encoding is refused without failing the whole change.
    expect(r.sloppyDiffers).toBe(true);
    expect(step('non-canonical-key').rejected.map((x) => x.id)).toEqual(['dev_a']);
    expect(step('non-canonical-key').ids).toEqual(['dev_b', 'dev_c']);
    // setPeers: exactly the listed, well-formed peers.
    expect(step('set-all').rejected.map((x) => x.id)).toEqual(['dev_b']);
    expect(step('set-all').ids).toEqual(['dev_a']);
    expect(r.stats).toEqual([{ id: 'dev_a', rxBytes: 0, txBytes: 0, handshakeAgeMs: null }]);
  });
});
