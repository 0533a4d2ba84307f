// netcli's words for the account, the sign-in and the account's devices.
import type {
  Device,
  ListedDevice,
  LocalAddDeviceResponse,
  LocalSession,
} from '../../contracts/index.js';
import { table } from './table.js';

/** "1234 5678 9012 3456": the number as people copy it. */
export function accountNumberText(number: string): string {
  return number.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** 1536 MiB -> "1.5 GB" (binary units, the way the data cap is counted). */
export function bytesText(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits).replace(/\.0$/, '')} ${units[unit]}`;
}

export function formatSession(session: LocalSession, created: boolean): string[] {
  const number = accountNumberText(session.account_number);
  const device = `this device is signed in as ${session.device.name}`;
  return created
    ? [
        `Account ${number} created; ${device}.`,
        'Keep the number: it is the only way to sign in to the account.',
      ]
    : [`Signed in to account ${number}; ${device}.`];
}

export interface AccountView {
  account_number: string;
  plan: { name: string; price_monthly_eur: number };
  devices: { used: number; limit: number };
  usage: { period: string; bytes: number; data_cap_bytes: number | null };
  device: Device;
}

export function formatAccount(a: AccountView): string[] {
  const price = a.plan.price_monthly_eur === 0 ? 'free' : `€${a.plan.price_monthly_eur}/month`;
  const cap = a.usage.data_cap_bytes === null ? '' : ` of ${bytesText(a.usage.data_cap_bytes)}`;
  return [
    `Account  ${accountNumberText(a.account_number)}`,
    `Plan     ${a.plan.name} (${price})`,
    `Devices  ${a.devices.used} of ${a.devices.limit} (this one: ${a.device.name})`,
    `Usage    ${bytesText(a.usage.bytes)}${cap} in ${a.usage.period}`,
  ];
}

/** The account's devices with their live state, as `tailscale status` lists its peers. */
export function formatDevices(devices: readonly ListedDevice[]): string[] {
  if (devices.length === 0) return ['No devices.'];
  return table(
    ['ID', 'NAME', 'KIND', 'STATE', 'LATENCY', 'REGION', ''],
    devices.map((d) => [
      d.id,
      d.name,
      d.kind,
      d.status,
      d.latency ?? '-',
      d.region ?? '-',
      d.current ? '(this device)' : '',
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
  written: readonly { what: string; file: string }[],
): string[] {
  const { device } = added;
  return [
    qrCode.replace(/\n+$/, ''),
    `Scan this with the WireGuard app on the ${device.kind}: + → Scan from QR code (iOS: + → Create from QR code).`,
    `${device.name} (${device.kind}) is on the account as ${device.id}; its tunnel goes to ${added.region}.`,
    `The code holds its private key, made here and kept nowhere else: whoever scans it can use the ${device.kind}'s place on the account (netcli devices revoke ${device.id} removes it).`,
    ...written.map((w) => `Its ${w.what} is in ${w.file} (readable by you only).`),
  ];
}
