// A node's TLS transport in the control plane: the port and server name its relay registers are
// in GET /nodes and in the connect answer's node; a relay without one (or an older relay that
// says nothing of it) shows nulls; a port without a name, a name without a port, or an address
// for a name is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backends,
  newPublicKey,
  startControlPlane,
  type Harness,
} from './testing/control-plane-harness.js';

describe.each(backends())('the TLS transport in node records on %s', (backend) => {
  let h: Harness;
  let device: string;
  let node: { id: string; token: string };
  beforeAll(async () => {
    h = await startControlPlane(backend);
    const account = await h.createAccount();
    await h.setPlan(account, 'premium');
    device = (await h.signIn(account)).token;
    node = await h.addNode('eu-west');
  });
  afterAll(async () => h?.close());

  const keys = () => ({ wireguard_public_key: newPublicKey(), ferry_public_key: newPublicKey() });
  const listed = async () =>
    (await h.client(device).listNodes({ query: { region: 'eu-west' } })).nodes.find(
      (n) => n.id === node.id,
    )!;
  const connected = async () =>
    (await h.client(device).connect({ body: { region: 'eu-west', protocol: 'ferry' } })).node;

  it('shows what the relay registers, in the node list and the connect answer', async () => {
    expect(await listed()).toMatchObject({ tls_port: null, tls_server_name: null });
    await h.client(node.token).nodeRegister({
      body: { ...keys(), tls_port: 443, tls_server_name: 'www.cover.test' },
    });
    expect((await h.heartbeat(node.token)).status).toBe(200);
    expect(await listed()).toMatchObject({ tls_port: 443, tls_server_name: 'www.cover.test' });
    expect(await connected()).toMatchObject({
      id: node.id,
      tls_port: 443,
      tls_server_name: 'www.cover.test',
    });
  });

  it('shows nulls once the relay registers without a TLS port (an older relay says nothing)', async () => {
    await h.client(node.token).nodeRegister({
      body: { ...keys(), tls_port: 8443, tls_server_name: 'cover.test' },
    });
    expect(await listed()).toMatchObject({ tls_port: 8443, tls_server_name: 'cover.test' });
    await h.client(node.token).nodeRegister({ body: keys() });
    expect(await listed()).toMatchObject({ tls_port: null, tls_server_name: null });
    expect((await h.heartbeat(node.token)).status).toBe(200);
    expect(await connected()).toMatchObject({ tls_port: null, tls_server_name: null });
    await h.client(node.token).nodeRegister({
      body: { ...keys(), tls_port: null, tls_server_name: null },
    });
    expect(await listed()).toMatchObject({ tls_port: null, tls_server_name: null });
  });

  it('refuses a port without a name, a name without a port, and a name that is no DNS name', async () => {
    await h.client(node.token).nodeRegister({
      body: { ...keys(), tls_port: 443, tls_server_name: 'kept.test' },
    });
    for (const tls of [
      { tls_port: 443 },
      { tls_port: 443, tls_server_name: null },
      { tls_server_name: 'cover.test' },
      { tls_port: null, tls_server_name: 'cover.test' },
      { tls_port: 443, tls_server_name: '192.0.2.1' },
      { tls_port: 443, tls_server_name: 'cover.test.' },
      { tls_port: 443, tls_server_name: 'cover test' },
      { tls_port: 0, tls_server_name: 'cover.test' },
      { tls_port: 65536, tls_server_name: 'cover.test' },
    ]) {
      const reply = await h.call('POST', '/node/register', {
        token: node.token,
        body: { ...keys(), ...tls },
      });
      expect(reply.status, JSON.stringify(tls)).toBe(400);
      expect(reply.body.code).toBe('validation-failed');
    }
    // Nothing refused changed the record.
    expect(await listed()).toMatchObject({ tls_port: 443, tls_server_name: 'kept.test' });
  });

  it('a connect for TLS gets a node that serves it, or a refusal that says so', async () => {
    const tlsConnect = (protocol: 'ferry' | 'wireguard') =>
      h.call('POST', '/connect', {
        token: device,
        body: { region: 'eu-west', protocol, transport: 'tls' },
      });
    await h.client(node.token).nodeRegister({
      body: { ...keys(), tls_port: 443, tls_server_name: 'cover.test' },
    });
    expect((await h.heartbeat(node.token)).status).toBe(200);
    const served = await tlsConnect('ferry');
    expect(served.status).toBe(200);
    expect(served.body.node).toMatchObject({ id: node.id, tls_port: 443 });
    // The region's only node drops its TLS port: nothing there serves TLS now.
    await h.client(node.token).nodeRegister({ body: keys() });
    expect((await h.heartbeat(node.token)).status).toBe(200);
    const none = await tlsConnect('ferry');
    expect(none.body.code).toBe('no-node-available');
    expect(none.body.detail).toMatch(/^no healthy ferry node serving TLS with free capacity in/);
    // Plain Ferry still connects there.
    expect((await connected()).id).toBe(node.id);
    // WireGuard has no TLS.
    const wg = await tlsConnect('wireguard');
    expect(wg.status).toBe(400);
    expect(wg.body).toMatchObject({ code: 'validation-failed' });
    expect(wg.body.errors).toEqual([
      expect.objectContaining({
        field: 'transport',
        message: expect.stringMatching(/^WireGuard has UDP only/),
      }),
    ]);
  });
});
