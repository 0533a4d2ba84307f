// Tunnel plans for unit tests: a connect answer as the control plane gives it (test keys, test
// addresses from the documentation ranges), for either protocol.
import type { ConnectResponse } from '../../contracts/control-api.js';
import type { TunnelPlan } from './tunnel.js';

export const TEST_KEYS = {
  devicePrivate: 'EKrCW/JfCxcLy9buWIRC6Qfn30UJwlCp0ZlRqMHgDG8=',
  devicePublic: '8FbeyMoXtZf9I5z8rwKGr+59mmtOAi2aVZEVivTS1SU=',
  nodeWireguard: '8f1PTzdhM8TKXBvQ77FaBB3xooPxio5mVvdI1tDx2XE=',
  nodeFerry: 'IGnpy19DAgrOH1hTMSrSQkbpmkj4FzoBwvmRw/VT2Fw=',
} as const;

export function testAnswer(
  protocol: ConnectResponse['protocol'],
  over: Partial<ConnectResponse> = {},
): ConnectResponse {
  return {
    session_id: 'sess-1',
    status: 'connecting',
    region: 'asia-east',
    protocol,
    cipher: 'ChaCha20-Poly1305',
    usage: 'remote-work',
    mode: 'secure',
    node: {
      id: 'node-1',
      region: 'asia-east',
      endpoint_host: '192.0.2.10',
      wireguard_port: 51820,
      wireguard_public_key: TEST_KEYS.nodeWireguard,
      ferry_port: 51900,
      ferry_public_key: TEST_KEYS.nodeFerry,
    },
    tunnel: {
      ipv4: '10.64.0.7',
      ipv6: 'fd66:6572:7279::7',
      dns: ['10.64.0.1'],
      mtu: protocol === 'ferry' ? 1380 : 1420,
      keepalive: 25,
      allowed_ips: ['0.0.0.0/0', '::/0'],
    },
    rotation: { session_key_seconds: 120, session_key_bytes: null },
    routing: { strategy: 'auto: lowest-latency', reasons: [] },
    notices: [],
    ...over,
  };
}

export function testPlan(
  protocol: ConnectResponse['protocol'],
  over: Partial<TunnelPlan> = {},
): TunnelPlan {
  return {
    answer: testAnswer(protocol),
    privateKey: TEST_KEYS.devicePrivate,
    routes: { kind: 'all' },
    interfaceName: 'fytmain0a1b2c',
    ...over,
  };
}
