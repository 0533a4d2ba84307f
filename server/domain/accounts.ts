// Accounts and signing devices in: account numbers, passwords, device limits, plan changes.
import type { z } from 'zod';
import type {
  AccountResponse,
  AddDeviceRequest,
  CreateAccountResponse,
  CreateSessionRequest,
  CreateSessionResponse,
  Device,
  DeviceInput,
} from '../../contracts/index.js';
import { tunnelAddresses } from './addresses.js';
import { periodOf, type Clock } from './clock.js';
import { fail, ok, type Result } from './errors.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { AuthInvalidation } from './device-auth-cache.js';
import type { EventBus } from './event-bus.js';
import type { PeerFeed } from './peer-feed.js';
import { DEFAULT_PLAN, planOf, planView, type PlanRule } from './plans.js';
import type { AccountsStore } from './ports/accounts.js';
import type { DeviceAuth, DeviceRow, DevicesStore } from './ports/devices.js';
import type { RegionsStore } from './ports/regions.js';
import type { Transactions } from './ports/stores.js';
import { claimKeys } from './public-keys.js';
import { hashToken, newAccountNumber, newId, newToken } from './secrets.js';
import { deviceView } from './views.js';

export interface AccountsDeps {
  transactions: Transactions;
  accounts: AccountsStore;
  devices: DevicesStore;
  regions: RegionsStore;
  feed: PeerFeed;
  bus: EventBus;
  auth: AuthInvalidation;
  clock: Clock;
}

export class AccountService {
  constructor(private readonly d: AccountsDeps) {}

  async createAccount(
    password: string | undefined,
  ): Promise<Result<z.input<typeof CreateAccountResponse>>> {
    const hash = password === undefined ? null : await hashPassword(password);
    // 10^15 numbers: a collision is rare, but a taken number is never handed out twice.
    for (let attempt = 0; attempt < 5; attempt++) {
      const number = newAccountNumber();
      if ((await this.d.accounts.insert(number, hash, DEFAULT_PLAN)) !== undefined) {
        return ok({ account_number: number, plan: DEFAULT_PLAN });
      }
    }
    return fail('unavailable', 'could not allocate an account number; try again');
  }

  async signIn(
    req: z.output<typeof CreateSessionRequest>,
  ): Promise<Result<z.input<typeof CreateSessionResponse>>> {
    const account = await this.d.accounts.byNumber(req.account_number);
    // One answer for a wrong number and a wrong password: numbers cannot be probed.
    const badCredentials = () =>
      fail('invalid-credentials', 'unknown account number or wrong password');
    if (!account) return badCredentials();
    if (account.password_hash !== null) {
      if (
        req.password === undefined ||
        !(await verifyPassword(account.password_hash, req.password))
      ) {
        return badCredentials();
      }
    }
    const token = newToken('device');
    const added = await this.insertDevice(
      account.id,
      planOf(account.plan),
      req.device,
      hashToken(token),
      'device.',
    );
    if (!added.ok) return added;
    return ok({ token, device: deviceView(added.value, added.value.id) });
  }

  /**
   * A device that a signed-in one adds to its account (a phone or tablet on the official
   * WireGuard app): the public keys of key pairs made on the adding device. It holds no token:
   * the hash stored for it is of a random token that is never handed out, so nothing can
   * authenticate as it; it only ever carries a tunnel.
   */
  async addDevice(
    auth: DeviceAuth,
    device: z.output<typeof AddDeviceRequest>,
  ): Promise<Result<z.input<typeof Device>>> {
    const added = await this.insertDevice(
      auth.accountId,
      planOf(auth.plan),
      device,
      hashToken(newToken('device')),
      '',
    );
    if (!added.ok) return added;
    return ok(deviceView(added.value, auth.deviceId));
  }

  /**
   * Inserts a device within the plan's device limit (409 device-limit listing the devices), its
   * keys claimed (409 key-in-use, on `fieldPrefix` + the key's field), its tunnel addresses
   * assigned and its peer announced.
   */
  private async insertDevice(
    accountId: number,
    plan: PlanRule,
    device: z.output<typeof DeviceInput>,
    tokenHash: string,
    fieldPrefix: string,
  ): Promise<Result<DeviceRow>> {
    const deviceId = newId('dev');
    const outcome = await this.d.transactions.transaction(async (tx) => {
      // Two additions to one account cannot both take the last slot.
      await tx.accounts.lock(accountId);
      const used = await tx.devices.countForAccount(accountId);
      if (used >= plan.deviceLimit) {
        const devices = await tx.devices.listForAccount(accountId);
        return fail(
          'device-limit',
          `the ${plan.name} plan allows ${plan.deviceLimit} devices; revoke one to add this one`,
          {
            extra: {
              device_limit: plan.deviceLimit,
              devices: devices.map((r) => deviceView(r, undefined)),
            },
          },
        );
      }
      const claimed = await claimKeys(tx.keys, {
        owner: { kind: 'device', id: deviceId },
        after: {
          wireguard_public_key: device.wireguard_public_key,
          ferry_public_key: device.ferry_public_key,
        },
        changed: ['wireguard_public_key', 'ferry_public_key'],
        fieldPrefix,
      });
      if (!claimed.ok) return claimed;
      const seq = await tx.devices.insert({
        id: deviceId,
        account_id: accountId,
        name: device.name,
        kind: device.kind,
        wireguard_public_key: device.wireguard_public_key,
        ferry_public_key: device.ferry_public_key,
        token_hash: tokenHash,
      });
      const addresses = tunnelAddresses(seq);
      await tx.devices.setAddresses(deviceId, addresses.ipv4, addresses.ipv6);
      const version = await this.d.feed.record(tx, [deviceId]);
      const row = await tx.devices.get(accountId, deviceId);
      return ok({ version, row: row! });
    });
    if (!outcome.ok) return outcome;
    await this.d.feed.announce(outcome.value.version);
    return ok(outcome.value.row);
  }

  async describe(auth: DeviceAuth): Promise<z.input<typeof AccountResponse>> {
    const plan = planOf(auth.plan);
    const period = periodOf(this.d.clock.nowMs());
    const [regions, used, bytes] = await Promise.all([
      this.d.regions.listRegions(),
      this.d.devices.countForAccount(auth.accountId),
      this.d.accounts.usage(auth.accountId, period),
    ]);
    return {
      account_number: auth.accountNumber,
      plan: planView(
        plan,
        regions.map((r) => r.id),
      ),
      devices: { used, limit: plan.deviceLimit },
      usage: { period, bytes, data_cap_bytes: plan.dataCapBytes },
    };
  }

  async setPlan(
    accountNumber: string,
    planId: string,
  ): Promise<Result<{ account_number: string; plan: string }>> {
    // The request schema admits only known plans.
    const plan = planOf(planId);
    const changed = await this.d.transactions.transaction(async (tx) => {
      const account = await tx.accounts.byNumber(accountNumber);
      if (!account) return undefined;
      await tx.accounts.setPlan(account.id, plan.id);
      // The plan decides which nodes hold the account's peers (device tunnels too) and their limits.
      const version = await this.d.feed.record(tx, await tx.devices.peerIdsForAccount(account.id));
      return { accountId: account.id, version };
    });
    if (changed === undefined) return fail('not-found', 'no such account');
    // Device tokens carry the plan: cached ones must not outlive it, here or elsewhere.
    this.d.auth.forgetAccount(changed.accountId);
    await this.d.feed.announce(changed.version);
    await this.d.bus.publish({ kind: 'account', accountId: changed.accountId, change: 'plan' });
    return ok({ account_number: accountNumber, plan: plan.id });
  }
}
