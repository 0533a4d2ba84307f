// netcli's words for the account, the sign-in and the account's devices.
import type {
  Device,
  ListedDevice,
  LocalAddDeviceResponse,
  LocalSession,
  Translate,
} from '../../contracts/index.js';
import { table } from './table.js';
import { english, isEnglish, latencyText, monthText } from './words.js';

/** "1234 5678 9012 3456": the number as people copy it. */
export function accountNumberText(number: string): string {
  return number.replace(/(\d{4})(?=\d)/g, '$1 ');
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** 1536 MiB -> "1.5 GB" (binary units, the way the data cap is counted), in the language's forms. */
export function bytesText(bytes: number, t: Translate = english): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  if (isEnglish(t)) return `${value.toFixed(digits).replace(/\.0$/, '')} ${UNITS[unit]}`;
  return t(`output.units.${UNITS[unit]!}`, { value: Number(value.toFixed(digits)) });
}

export function formatSession(
  session: LocalSession,
  created: boolean,
  t: Translate = english,
): string[] {
  const number = accountNumberText(session.account_number);
  const device = session.device.name;
  return created
    ? [t('output.account.created', { number, device }), t('output.account.keepNumber')]
    : [t('output.account.signedIn', { number, device })];
}

export interface AccountView {
  account_number: string;
  plan: { name: string; price_monthly_eur: number };
  devices: { used: number; limit: number };
  usage: { period: string; bytes: number; data_cap_bytes: number | null };
  device: Device;
}

export function formatAccount(a: AccountView, t: Translate = english): string[] {
  const price =
    a.plan.price_monthly_eur === 0
      ? t('output.account.free')
      : isEnglish(t)
        ? `€${a.plan.price_monthly_eur}/month`
        : t('output.account.price', { price: a.plan.price_monthly_eur });
  const usage =
    a.usage.data_cap_bytes === null
      ? t('output.account.usage', {
          used: bytesText(a.usage.bytes, t),
          period: monthText(a.usage.period, t),
        })
      : t('output.account.usageOfCap', {
          used: bytesText(a.usage.bytes, t),
          cap: bytesText(a.usage.data_cap_bytes, t),
          period: monthText(a.usage.period, t),
        });
  return [
    t('output.account.number', { number: accountNumberText(a.account_number) }),
    t('output.account.plan', { plan: a.plan.name, price }),
    t('output.account.devices', {
      used: a.devices.used,
      limit: a.devices.limit,
      device: a.device.name,
    }),
    usage,
  ];
}

/** The account's devices with their live state, as `tailscale status` lists its peers. */
export function formatDevices(devices: readonly ListedDevice[], t: Translate = english): string[] {
  if (devices.length === 0) return [t('output.account.noDevices')];
  return table(
    [
      t('output.account.columns.id'),
      t('output.account.columns.name'),
      t('output.account.columns.kind'),
      t('output.account.columns.state'),
      t('output.account.columns.latency'),
      t('output.account.columns.region'),
      '',
    ],
    devices.map((d) => [
      d.id,
      d.name,
      d.kind,
      d.status,
      d.latency ? latencyText(d.latency, t) : '-',
      d.region ?? '-',
      d.current ? t('output.account.thisDevice') : '',
    ]),
  );
}

/**
 * A phone or tablet just added: its QR code, how to use it, and what the code holds (its private
 * key, made here and kept nowhere else).
 */
export function formatAddedDevice(
  added: LocalAddDeviceResponse,
  qrCode: string,
  written: readonly { what: 'config' | 'qr'; file: string }[],
  t: Translate = english,
): string[] {
  const { device } = added;
  const kind = device.kind === 'tablet' ? t('output.account.tablet') : t('output.account.phone');
  return [
    qrCode.replace(/\n+$/, ''),
    t('output.account.scan', { kind }),
    t('output.account.added', {
      name: device.name,
      kind,
      id: device.id,
      region: added.region,
    }),
    t('output.account.privateKey', { kind, id: device.id }),
    ...written.map((w) =>
      w.what === 'config'
        ? t('output.account.configIn', { file: w.file })
        : t('output.account.qrIn', { file: w.file }),
    ),
  ];
}
