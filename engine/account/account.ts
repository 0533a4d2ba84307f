// The sign-in and the account's devices: create an account, sign this host in as a new device
// (fresh keys), sign out (revoke, forget), rename, revoke, and a phone or tablet set up from here.
import {
  ApiError,
  type Device,
  type LocalAddDeviceRequest,
  type LocalAddDeviceResponse,
  type LocalSession,
} from '../../contracts/index.js';
import { hostname } from 'node:os';

import { resolveRegionChoice } from '../catalog/region-rules.js';
import type { EngineContext } from '../engine-context.js';
import {
  parseWgQuickConfig,
  WgQuickConfigError,
  writeWgQuickConfig,
  type WgQuickConfig,
} from '../wg-quick-config.js';
import { generateWireguardPrivateKey, wireguardPublicKey } from '../wireguard-keys.js';
import type { ControlClient } from '../../contracts/index.js';

export interface AccountDeps {
  /** Disconnects and stops the service tunnels (the device they run as is going). */
  beforeSignOut: () => Promise<void>;
  /** The sign-in changed: the status says so. */
  changed: () => void;
}

export class AccountService {
  constructor(
    private readonly ctx: EngineContext,
    private readonly deps: AccountDeps,
  ) {}

  createAccount(request: {
    password?: string | undefined;
    device_name?: string | undefined;
  }): Promise<LocalSession> {
    return this.ctx.ops.run(async () => {
      const control = await this.ctx.controlClient();
      const account = await control.createAccount({
        body: request.password === undefined ? {} : { password: request.password },
      });
      return this.signIn(control, account.account_number, request.password, request.device_name);
    });
  }

  login(request: {
    account_number: string;
    password?: string | undefined;
    device_name?: string | undefined;
  }): Promise<LocalSession> {
    return this.ctx.ops.run(async () => {
      const control = await this.ctx.controlClient();
      return this.signIn(control, request.account_number, request.password, request.device_name);
    });
  }

  logout(): Promise<{ signed_in: false }> {
    return this.ctx.ops.run(async () => {
      const control = await this.ctx.controlClient().catch(() => null);
      await this.signOut(control);
      return { signed_in: false as const };
    });
  }

  /** Signs this host in as a new device (fresh keys); a current sign-in is ended first. */
  private async signIn(
    control: ControlClient,
    accountNumber: string,
    password: string | undefined,
    deviceName: string | undefined,
  ): Promise<LocalSession> {
    const { ctx } = this;
    if (await ctx.sessions.info()) await this.signOut(control);
    const keys = await ctx.keys.renew();
    const session = await control.createSession({
      body: {
        account_number: accountNumber,
        ...(password === undefined ? {} : { password }),
        device: {
          name: deviceName ?? this.defaultDeviceName(),
          kind: ctx.deps.deviceKind ?? 'desktop',
          wireguard_public_key: keys.wireguard,
          ferry_public_key: keys.ferry,
        },
      },
    });
    const number = accountNumber.replace(/\D/g, '');
    await ctx.sessions.save(number, session.token, session.device);
    ctx.signedIn = true;
    ctx.reachedService(control, await ctx.config.load());
    this.deps.changed();
    return { account_number: number, device: session.device };
  }

  private defaultDeviceName(): string {
    const name = (this.ctx.deps.deviceName?.() ?? hostname()).replace(/[^\p{L}\p{N} ._-]/gu, '');
    return (name || 'desktop').slice(0, 64);
  }

  /** Disconnects, revokes this device (best effort: unreachable is no reason to stay in), forgets it. */
  private async signOut(control: ControlClient | null): Promise<void> {
    const { ctx } = this;
    await this.deps.beforeSignOut();
    const session = await ctx.sessions.info().catch(() => null);
    if (control && session) {
      await control
        .revokeDevice({ params: { id: session.device.id }, timeoutMs: 5_000 })
        .catch(() => undefined);
    }
    await ctx.sessions.clear();
    ctx.signedIn = false;
    this.deps.changed();
  }

  async account() {
    const control = await this.ctx.controlClient();
    const session = await this.ctx.requireSession();
    const account = await control.getAccount();
    return { ...account, device: session.device };
  }

  async listDevices() {
    return (await this.ctx.signedInControl()).listDevices();
  }

  /**
   * A phone or tablet for the official WireGuard apps, set up from this host: its key pair made
   * here in memory, the public key registered as a new device of the account (the plan's device
   * limit applies: the control plane's 409 device-limit passes on with its code), its config
   * asked for without the private key, which is filled in here. The key is in the answer and
   * nowhere else: not in the state directory, not in any message. When no config can be had the
   * new device is revoked again: its key ends with this call, so it could never be used.
   */
  async addDevice(request: LocalAddDeviceRequest): Promise<LocalAddDeviceResponse> {
    const { ctx } = this;
    const control = await ctx.signedInControl();
    const config = await ctx.config.load();
    const region = resolveRegionChoice(request.region ?? config.region, await ctx.rules.list());
    const privateKey = generateWireguardPrivateKey();
    // A device record holds a Ferry key too; the official apps speak WireGuard only, so its
    // private half is dropped at once.
    const ferry = ctx.deps.ferryKeys;
    const device = await control.addDevice({
      body: {
        name: request.name,
        kind: request.kind,
        wireguard_public_key: wireguardPublicKey(privateKey),
        ferry_public_key: ferry.publicKey(ferry.generatePrivateKey()),
      },
    });
    try {
      const answer = await control.wireguardConfig({
        params: { id: device.id },
        body: {
          region,
          allow_lan: request.allow_lan,
          ...(request.dns === undefined ? {} : { dns: request.dns }),
        },
      });
      // Rebuilt from the fields read, never the service's text passed on (wg-quick runs a
      // PostUp as root): netcli's QR code and files and the app's all come from this.
      let fields: WgQuickConfig;
      try {
        fields = parseWgQuickConfig(answer.config);
      } catch (e) {
        if (!(e instanceof WgQuickConfigError)) throw e;
        throw new ApiError({
          code: 'bad-response',
          detail: `the service’s config for the device was refused: ${e.message}`,
          route: 'POST /devices/:id/wireguard-config',
          cause: e,
        });
      }
      return { device, config: writeWgQuickConfig(fields, privateKey), region: answer.region };
    } catch (e) {
      await control
        .revokeDevice({ params: { id: device.id }, timeoutMs: 5_000 })
        .catch(() => undefined);
      throw e;
    }
  }

  async renameDevice(id: string, name: string): Promise<Device> {
    const control = await this.ctx.signedInControl();
    const device = await control.renameDevice({ params: { id }, body: { name } });
    if (device.current) await this.ctx.sessions.updateDevice(device);
    return device;
  }

  async revokeDevice(id: string): Promise<void> {
    const control = await this.ctx.controlClient();
    const session = await this.ctx.requireSession();
    if (id === session.device.id) {
      await this.logout();
      return;
    }
    await control.revokeDevice({ params: { id } });
  }
}
