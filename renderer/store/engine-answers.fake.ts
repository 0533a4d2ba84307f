// Plausible engine answers for tests of the store and the screens: a signed-in device on the
// basic plan, two regions and a rule. Shapes are the contracts'; values are made up.
import {
  CLIENT_CONFIG_DEFAULTS,
  type ClientConfig,
  type ConfigKey,
} from '../../contracts/client-config.js';
import type { Device, ListedDevice } from '../../contracts/control-api.js';
import { diagnosticCheck, diagnosticsReport } from '../../contracts/diagnostics.js';
import type { FaceValue } from '../../contracts/ipc.js';
import { idleStatus, type LocalStatus } from '../../contracts/local-api.js';
import { FakeTransport } from '../transport/transport.fake.js';

export const CONFIG: ClientConfig = { ...CLIENT_CONFIG_DEFAULTS, service: 'https://ferry.example' };

export function statusOf(patch: Partial<LocalStatus> = {}): LocalStatus {
  return { ...idleStatus(true, true), ...patch };
}

export function connectedStatus(patch: Partial<LocalStatus> = {}): LocalStatus {
  return statusOf({
    status: 'connected',
    latency: '42ms',
    latency_ms: 42,
    latency_history: [42],
    region: 'asia-east',
    node: { id: 'tyo-1', region: 'asia-east', endpoint: '198.51.100.7:51820' },
    protocol: 'wireguard',
    cipher: 'ChaCha20-Poly1305',
    mode: 'secure',
    transport: 'udp',
    interface: 'ferry0',
    protection: {
      kill_switch: 'active',
      lockdown: false,
      split: 'by-country',
      home_country: 'DE',
      dns: ['10.64.0.1'],
    },
    ...patch,
  });
}

export const REGIONS: FaceValue<'listRegions'> = {
  regions: [
    {
      id: 'asia-east',
      name: 'Asia East',
      area: 'asia',
      country: 'JP',
      load: 0.35,
      nodes_healthy: 2,
      platforms_verified: ['netflix'],
      allowed: true,
      entry: false,
      latency: '42ms',
    },
    {
      id: 'eu-west',
      name: 'Europe West',
      area: 'europe',
      country: 'NL',
      load: 0.8,
      nodes_healthy: 1,
      platforms_verified: [],
      allowed: false,
      entry: false,
      latency: null,
    },
  ],
  rules: [{ name: 'work-asia', area: 'asia', strategy: 'lowest-latency' }],
};

export const THIS_DEVICE: Device = {
  id: 'dev_this',
  name: 'Laptop',
  kind: 'laptop',
  wireguard_public_key: 'k',
  ferry_public_key: 'k',
  tunnel_ipv4: '10.64.0.2',
  tunnel_ipv6: 'fd00::2',
  current: true,
};
export const OTHER_DEVICE: Device = {
  ...THIS_DEVICE,
  id: 'dev_phone',
  name: 'Phone',
  kind: 'phone',
  current: false,
};

/** A device as the engine lists it: its record and its live state (disconnected unless given). */
export function listed(
  device: Device,
  state: Partial<Pick<ListedDevice, 'status' | 'latency' | 'region'>> = {},
): ListedDevice {
  return { ...device, status: 'disconnected', latency: null, region: null, ...state };
}

/** A phone just added, and its config with the (made-up) private key the engine filled in. */
export const NEW_PHONE: Device = {
  ...THIS_DEVICE,
  id: 'dev_new_phone',
  name: 'Anna’s phone',
  kind: 'phone',
  tunnel_ipv4: '10.64.0.9',
  tunnel_ipv6: 'fd00::9',
  current: false,
};
export const PHONE_CONFIG = [
  '[Interface]',
  'PrivateKey = eMadeUpPrivateKeyForTestsOnly0000000000000000=',
  'Address = 10.64.0.9/32, fd00::9/128',
  'DNS = 10.64.0.1',
  'MTU = 1380',
  '',
  '[Peer]',
  'PublicKey = nodeKeyForTests000000000000000000000000000000=',
  'AllowedIPs = 0.0.0.0/0, ::/0',
  'Endpoint = 198.51.100.7:51820',
  'PersistentKeepalive = 25',
  '',
].join('\n');
export const ADDED_PHONE: FaceValue<'addDevice'> = {
  device: NEW_PHONE,
  config: PHONE_CONFIG,
  region: 'asia-east',
};

export const ACCOUNT: FaceValue<'account'> = {
  account_number: '1234567812345678',
  plan: {
    id: 'basic',
    name: 'Basic',
    price_monthly_eur: 0,
    device_limit: 2,
    regions: ['asia-east'],
    data_cap_bytes: 10 * 1024 ** 3,
    bandwidth_limit_mbps: 50,
    protocols: ['wireguard', 'ferry'],
  },
  devices: { used: 2, limit: 2 },
  usage: { period: '2026-06', bytes: 3 * 1024 ** 3, data_cap_bytes: 10 * 1024 ** 3 },
  device: THIS_DEVICE,
};

export const REPORT = diagnosticsReport(
  [
    diagnosticCheck('engine', 'ok', 'the engine answers'),
    diagnosticCheck('node-udp', 'problem', 'no answer over UDP', 'Set obfuscation to on.'),
  ],
  new Date('2026-06-01T10:00:00Z'),
  1200,
);

/** A fake engine with every read answered as a signed-in, disconnected device's. */
export function signedInEngine(status: LocalStatus = statusOf()): FakeTransport {
  return new FakeTransport()
    .answer('status', () => status)
    .answer('getConfig', () => CONFIG)
    .answer('listRegions', () => REGIONS)
    .answer('account', () => ACCOUNT)
    .answer('listDevices', () => ({ devices: [listed(THIS_DEVICE), listed(OTHER_DEVICE)] }))
    .answer('diagnose', () => REPORT);
}

/** A patchConfig answer: the body applied to CONFIG, with the effect the engine reports. */
export function configAnswer(effect: 'reconnected' | 'applied' | 'saved') {
  return (payload: { body?: unknown }): FaceValue<'patchConfig'> => {
    const body = (payload.body ?? {}) as Partial<ClientConfig>;
    return {
      config: { ...CONFIG, ...body },
      changed: Object.keys(body) as ConfigKey[],
      effect,
    };
  };
}
