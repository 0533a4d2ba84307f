// Configurations for devices that run the official WireGuard apps: a connect on the device's
// behalf, rendered as wg-quick text without the private key (the device fills it in).
import type { z } from 'zod';
import type { WireguardConfigRequest, WireguardConfigResponse } from '../../contracts/index.js';
import type { ConnectionService } from './connections.js';
import type { DeviceService } from './devices.js';
import { ok, type Result } from './errors.js';
import type { DeviceAuth } from './ports/devices.js';
import { renderWgQuick } from './wireguard-config.js';

export class DeviceConfigService {
  constructor(
    private readonly devices: DeviceService,
    private readonly connections: ConnectionService,
  ) {}

  async wireguard(
    auth: DeviceAuth,
    deviceId: string,
    req: z.output<typeof WireguardConfigRequest>,
  ): Promise<Result<z.input<typeof WireguardConfigResponse>>> {
    // The request schema refuses private_key: a key never reaches this service.
    const found = await this.devices.get(auth, deviceId);
    if (!found.ok) return found;
    const device = found.value;
    // The session is the device's own, as if it had called connect itself.
    const target: DeviceAuth = {
      deviceId: device.id,
      accountId: auth.accountId,
      accountNumber: auth.accountNumber,
      plan: auth.plan,
      tunnelIpv4: device.tunnel_ipv4,
      tunnelIpv6: device.tunnel_ipv6,
    };
    const connected = await this.connections.connect(target, {
      protocol: 'wireguard',
      ...(req.region ? { region: req.region } : {}),
    });
    if (!connected.ok) return connected;
    const answer = connected.value;
    return ok({
      session_id: answer.session_id,
      node_id: answer.node.id,
      region: answer.region,
      config: renderWgQuick(answer, device.name, { allowLan: req.allow_lan, dns: req.dns }),
    });
  }
}
