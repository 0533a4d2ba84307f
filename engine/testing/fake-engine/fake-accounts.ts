// The fake engine's accounts and devices, as the control plane would keep them: accounts made
// and signed into, this device's sign-in, the plan's device limit, phones added with a key pair
// made here, devices renamed and revoked.
import {
  ApiError,
  type Device,
  type ListedDevice,
  type LocalAddDeviceRequest,
  type LocalAddDeviceResponse,
  type LocalSession,
} from '../../../contracts/index.js';
import type { EngineApi } from '../../engine-api.js';
import { generateWireguardPrivateKey, wireguardPublicKey } from '../../wireguard-keys.js';
import { FAKE_DEVICE_LIMIT, FAKE_REGIONS, NODE_OF_REGION } from './fake-world.js';

type Answer<K extends keyof EngineApi> = EngineApi[K] extends (...a: never[]) => infer R
  ? Awaited<R>
  : never;

export interface FakeAccount {
  number: string;
  password: string | undefined;
  devices: Device[];
}

export type FakeSession = { account: FakeAccount; deviceId: string };

/** A device's live state as GET /devices lists it. */
export type LiveState = Pick<ListedDevice, 'status' | 'latency' | 'region'>;

let nextId = 1;

export class FakeAccounts {
  readonly accounts = new Map<string, FakeAccount>();
  /** The signed-in account and this device's id. */
  session: FakeSession | null = null;
  /**
   * The other devices' live state as the control plane would list it (a test control); a device
   * not in it is disconnected.
   */
  readonly liveStates = new Map<string, LiveState>();
  /** The private keys addDevice made, in order (the real engine keeps none: tests look). */
  readonly addedDeviceKeys: string[] = [];

  private newDevice(name: string | undefined): Device {
    const n = nextId++;
    return {
      id: `dev${n}`,
      name: name ?? 'fake-host',
      kind: 'laptop',
      wireguard_public_key: Buffer.alloc(32, n).toString('base64'),
      ferry_public_key: Buffer.alloc(32, n + 100).toString('base64'),
      tunnel_ipv4: `10.64.0.${n + 1}`,
      tunnel_ipv6: `fd00:64::${n + 1}`,
      current: false,
    };
  }

  /** This device's sign-in as the local API tells it. */
  sessionView(session: FakeSession): LocalSession {
    const device = session.account.devices.find((d) => d.id === session.deviceId)!;
    return { account_number: session.account.number, device: { ...device, current: true } };
  }

  /** The control plane's device-limit when the account's plan is full. */
  private fullPlan(
    account: FakeAccount,
    route: string,
    detail: string,
    problem: Record<string, unknown>,
  ): void {
    if (account.devices.length < FAKE_DEVICE_LIMIT) return;
    throw new ApiError({
      code: 'device-limit',
      detail,
      route,
      status: 409,
      problem: { ...problem, devices: account.devices.map((d) => ({ id: d.id, name: d.name })) },
    });
  }

  signIn(account: FakeAccount, deviceName: string | undefined): LocalSession {
    this.fullPlan(account, 'POST /sessions', `the plan allows ${FAKE_DEVICE_LIMIT} devices`, {});
    const device = this.newDevice(deviceName);
    account.devices.push(device);
    this.session = { account, deviceId: device.id };
    return this.sessionView(this.session);
  }

  create(password: string | undefined): FakeAccount {
    const number = String(1000_0000_0000_0000 + this.accounts.size * 7919 + 42);
    const account: FakeAccount = { number, password, devices: [] };
    this.accounts.set(number, account);
    return account;
  }

  /** The account the number and password open; the control plane's invalid-credentials. */
  open(number: string, password: string | undefined): FakeAccount {
    const account = this.accounts.get(number);
    if (!account || (account.password !== undefined && account.password !== password)) {
      throw new ApiError({
        code: 'invalid-credentials',
        detail: 'wrong account number or password',
        route: 'POST /sessions',
        status: 401,
      });
    }
    return account;
  }

  /** This device leaves its account. */
  signOut(): void {
    if (!this.session) return;
    const { account, deviceId } = this.session;
    account.devices = account.devices.filter((d) => d.id !== deviceId);
    this.session = null;
  }

  account(session: FakeSession): Answer<'account'> {
    const { account } = session;
    return {
      account_number: account.number,
      plan: {
        id: 'basic',
        name: 'Basic',
        price_monthly_eur: 0,
        device_limit: FAKE_DEVICE_LIMIT,
        regions: FAKE_REGIONS.filter((r) => r.allowed).map((r) => r.id),
        data_cap_bytes: 10 * 1024 ** 3,
        bandwidth_limit_mbps: 100,
        protocols: ['wireguard', 'ferry'],
      },
      devices: { used: account.devices.length, limit: FAKE_DEVICE_LIMIT },
      usage: { period: '2026-05', bytes: 1536 * 1024 ** 2, data_cap_bytes: 10 * 1024 ** 3 },
      device: this.sessionView(session).device,
    };
  }

  /** The account's devices; this one's live state is `own`, the others' from liveStates. */
  listDevices(session: FakeSession, own: LiveState): Answer<'listDevices'> {
    const { account, deviceId } = session;
    return {
      devices: account.devices.map((d) => ({
        ...d,
        current: d.id === deviceId,
        ...(d.id === deviceId
          ? own
          : (this.liveStates.get(d.id) ?? { status: 'disconnected', latency: null, region: null })),
      })),
    };
  }

  /** A phone or tablet added with a key pair made here, for a node of `region`. */
  addDevice(
    session: FakeSession,
    request: LocalAddDeviceRequest,
    region: string,
  ): LocalAddDeviceResponse {
    const { account } = session;
    this.fullPlan(
      account,
      'POST /devices',
      `the plan allows ${FAKE_DEVICE_LIMIT} devices; revoke one to add this one`,
      { device_limit: FAKE_DEVICE_LIMIT },
    );
    const privateKey = generateWireguardPrivateKey();
    this.addedDeviceKeys.push(privateKey);
    const device: Device = {
      ...this.newDevice(request.name),
      kind: request.kind,
      wireguard_public_key: wireguardPublicKey(privateKey),
    };
    account.devices.push(device);
    const node = NODE_OF_REGION[region]!;
    const dns = request.dns ?? ['10.64.0.1'];
    const config = [
      '[Interface]',
      `# Ferry: ${request.name}, node ${node} (${region})`,
      `PrivateKey = ${privateKey}`,
      `Address = ${device.tunnel_ipv4}/32, ${device.tunnel_ipv6}/128`,
      `DNS = ${dns.join(', ')}`,
      'MTU = 1420',
      '',
      '[Peer]',
      `PublicKey = ${Buffer.alloc(32, 7).toString('base64')}`,
      // The fake's short stand-in for the LAN-less list the control plane computes.
      `AllowedIPs = ${request.allow_lan ? '0.0.0.0/5, 8.0.0.0/7, 11.0.0.0/8, 10.64.0.1/32' : '0.0.0.0/0, ::/0'}`,
      `Endpoint = ${node}.example:51820`,
      'PersistentKeepalive = 25',
      '',
    ].join('\n');
    return { device, config, region };
  }

  /** A device of the signed-in account; the control plane's not-found for another. */
  device(session: FakeSession, id: string): Device {
    const device = session.account.devices.find((d) => d.id === id);
    if (!device) {
      throw new ApiError({
        code: 'not-found',
        detail: 'no such device on this account',
        route: 'PATCH /devices/:id',
        status: 404,
      });
    }
    return device;
  }

  rename(session: FakeSession, id: string, name: string): Device {
    const device = this.device(session, id);
    device.name = name;
    return { ...device, current: device.id === session.deviceId };
  }

  /** Revokes another device (this one's revocation is a sign-out: the engine's to do). */
  revokeOther(session: FakeSession, id: string): void {
    this.device(session, id);
    session.account.devices = session.account.devices.filter((d) => d.id !== id);
  }
}
