// Maps stored rows to the API's response shapes.
import type { Device, DeviceKind } from '../../contracts/index.js';
import type { DeviceRow } from './ports/devices.js';

export function deviceView(row: DeviceRow, currentDeviceId: string | undefined): Device {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as DeviceKind,
    wireguard_public_key: row.wireguard_public_key,
    ferry_public_key: row.ferry_public_key,
    tunnel_ipv4: row.tunnel_ipv4,
    tunnel_ipv6: row.tunnel_ipv6,
    current: row.id === currentDeviceId,
  };
}
