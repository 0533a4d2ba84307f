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
import type { AccountsRepo } from '../store/accounts-repo.js';
import type { DeviceRow, DevicesRepo } from '../store/devices-repo.js';
import type { PublicKeysRepo } from '../store/public-keys-repo.js';
import type { RegionsRepo } from '../store/regions-repo.js';
import type { Db, Dialect } from '../store/schema.js';
import { tunnelAddresses } from './addresses.js';
import { periodOf, type Clock } from './clock.js';
import type { DeviceAuth } from '../store/devices-repo.js';
import { fail, ok, type Result } from './errors.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { AuthInvalidation } from './device-auth-cache.js';
import type { EventBus } from './event-bus.js';
import type { PeerFeed } from './peer-feed.js';
import { DEFAULT_PLAN, planOf, planView, type PlanRule } from './plans.js';
import { claimKeys } from './public-keys.js';
import { hashToken, newAccountNumber, newId, newToken } from './secrets.js';
import { deviceView } from './views.js';

export interface AccountsDeps {
  db: Db;
  dialect: Dialect;
  accounts: AccountsRepo;
  devices: DevicesRepo;
  keys: PublicKeysRepo;
  regions: RegionsRepo;
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
    const outcome = await this.d.db.transaction().execute(async (trx) => {
      if (this.d.dialect === 'postgres') {
        // Serialises additions to one account so that two cannot both take the last slot.
        await trx
          .selectFrom('accounts')
          .select('id')
          .where('id', '=', accountId)
          .forUpdate()
          .execute();
      }
      const used = await this.d.devices.countForAccount(trx, accountId);
      if (used >= plan.deviceLimit) {
        const devices = await this.d.devices.listForAccount(accountId, trx);
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
      const claimed = await claimKeys(this.d.keys, trx, {
        owner: { kind: 'device', id: deviceId },
        after: {
          wireguard_public_key: device.wireguard_public_key,
          ferry_public_key: device.ferry_public_key,
        },
        changed: ['wireguard_public_key', 'ferry_public_key'],
        fieldPrefix,
      });
      if (!claimed.ok) return claimed;
      const seq = await this.d.devices.insert(trx, {
        id: deviceId,
        account_id: accountId,
        name: device.name,
        kind: device.kind,
        wireguard_public_key: device.wireguard_public_key,
        ferry_public_key: device.ferry_public_key,
        token_hash: tokenHash,
      });
      const addresses = tunnelAddresses(seq);
      await this.d.devices.setAddresses(trx, deviceId, addresses.ipv4, addresses.ipv6);
      const version = await this.d.feed.record(trx, [deviceId]);
      const row = await this.d.devices.get(accountId, deviceId, trx);
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
      this.d.devices.countForAccount(this.d.db, auth.accountId),
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
    const changed = await this.d.db.transaction().execute(async (trx) => {
      const account = await this.d.accounts.byNumber(accountNumber, trx);
      if (!account) return undefined;
      await this.d.accounts.setPlan(trx, account.id, plan.id);
      // The plan decides which nodes hold the account's peers (device tunnels too) and their limits.
      const version = await this.d.feed.record(
        trx,
        await this.d.devices.peerIdsForAccount(account.id, trx),
      );
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
