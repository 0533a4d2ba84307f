// The account: signing in (or creating an account) and out, the account and its devices,
// revoking one, and adding a phone or tablet (its config kept only until the form is closed,
// its failure shown in that form rather than as the error).
import type { ListedDevice } from '../../contracts/control-api.js';
import type { FaceValue } from '../../contracts/ipc.js';
import type { ADDED_DEVICE_KINDS, LocalAddDeviceResponse } from '../../contracts/local-api.js';
import { sentence, type ShownError } from './error-words.js';
import { validateAccountNumber, validateDeviceName } from './input-checks.js';
import type { EngineSlice, SliceDeps } from './slice.js';
import { storeWords } from './store-words.js';

export type Account = FaceValue<'account'>;

/** What "Add a phone or tablet" asks for (the engine's defaults for what is left out). */
export interface AddDeviceInput {
  kind: (typeof ADDED_DEVICE_KINDS)[number];
  name: string;
  /** A region, a rule or `auto`; left out: this device's region setting. */
  region?: string;
  /** Leave the phone's local network out of its tunnel. */
  allow_lan?: boolean;
}

export interface AccountReplica {
  account: Account | null;
  /** The account's devices with their live state (read again while the Account screen is open). */
  devices: ListedDevice[] | null;
  /**
   * The phone or tablet just added: its device and its wg-quick config, private key included.
   * Kept only until the person closes it (finishAddDevice); the key is then forgotten here.
   */
  addedDevice: LocalAddDeviceResponse | null;
  /** Why adding a phone or tablet failed, with its field errors: shown in its form. */
  addDeviceError: ShownError | null;
  /** The account number of an account just created here: shown until dismissed. */
  newAccountNumber: string | null;
}

export interface AccountActions {
  createAccount(): Promise<boolean>;
  login(accountNumber: string, password?: string): Promise<boolean>;
  logout(): Promise<void>;
  loadAccount(): Promise<void>;
  revokeDevice(id: string): Promise<void>;
  /**
   * Adds a phone or tablet: the engine makes its key pair and answers its config (private key
   * included), kept in `addedDevice` until finishAddDevice. The device list is read again.
   */
  addDevice(input: AddDeviceInput): Promise<boolean>;
  /** Closes "Add a phone or tablet": its config (and private key) and its error are dropped. */
  finishAddDevice(): void;
  dismissNewAccount(): void;
}

export const EMPTY_ACCOUNT: AccountReplica = {
  account: null,
  devices: null,
  addedDevice: null,
  addDeviceError: null,
  newAccountNumber: null,
};

export const createAccountSlice =
  ({ transport, calls }: SliceDeps): EngineSlice<AccountReplica & { actions: AccountActions }> =>
  (set, get) => ({
    ...EMPTY_ACCOUNT,
    actions: {
      createAccount() {
        return calls.sessionStep(async () => {
          const session = await transport.call('createAccount', { body: {} });
          set({ newAccountNumber: session.account_number });
        });
      },

      async login(accountNumber, password) {
        const checked = validateAccountNumber(accountNumber, storeWords(get()));
        if (!checked.ok) {
          set({ fieldErrors: [checked.error] });
          return false;
        }
        return calls.sessionStep(async () => {
          await transport.call('login', {
            body: { account_number: checked.value, ...(password ? { password } : {}) },
          });
        }, calls.failAtFields);
      },

      async logout() {
        const ok = await calls.exclusive('session', async () => {
          try {
            await transport.call('logout', {});
          } catch (e) {
            calls.fail(e);
          }
        });
        if (ok) await get().actions.refresh();
      },

      async loadAccount() {
        await calls.exclusive('account', async () => {
          try {
            const [account, devices] = await Promise.all([
              transport.call('account', {}),
              transport.call('listDevices', {}),
            ]);
            set({ account, devices: devices.devices });
          } catch (e) {
            calls.fail(e);
          }
        });
      },

      async revokeDevice(id) {
        const current = get().devices?.find((d) => d.id === id)?.current ?? false;
        let done = false;
        await calls.exclusive('revoke', async () => {
          try {
            await transport.call('revokeDevice', { params: { id } });
            done = true;
          } catch (e) {
            calls.fail(e);
          }
        });
        // Revoking this device signs it out: the whole picture changes, not just the list.
        const { actions } = get();
        if (done) await (current ? actions.refresh() : actions.loadAccount());
      },

      async addDevice(input) {
        const name = validateDeviceName(input.name, storeWords(get()));
        if (!name.ok) {
          set({
            addDeviceError: {
              code: 'validation-failed',
              words: sentence(name.error.message, storeWords(get())),
              action: null,
              errors: [name.error],
            },
          });
          return false;
        }
        let done = false;
        await calls.exclusive('addDevice', async () => {
          set({ addedDevice: null, addDeviceError: null });
          try {
            const added = await transport.call('addDevice', {
              body: {
                kind: input.kind,
                name: name.value,
                ...(input.region === undefined ? {} : { region: input.region }),
                allow_lan: input.allow_lan ?? false,
              },
            });
            set({ addedDevice: added });
            done = true;
          } catch (e) {
            set({ addDeviceError: calls.describe(e) });
          }
        });
        // The new device is in the list, and counts against the plan.
        if (done) await get().actions.loadAccount();
        return done;
      },

      finishAddDevice() {
        set({ addedDevice: null, addDeviceError: null });
      },

      dismissNewAccount() {
        set({ newAccountNumber: null });
      },
    },
  });
