// Configurations for devices that run the official WireGuard apps: a connect on the device's
// behalf, rendered as wg-quick text and a QR code.
import type { z } from 'zod';
import type { WireguardConfigRequest, WireguardConfigResponse } from '../../contracts/index.js';
import type { DeviceAuth } from '../store/devices-repo.js';
import type { ConnectionService } from './connections.js';
import type { DeviceService } from './devices.js';
import { fail, ok, type Result } from './errors.js';
import { publicKeyOf, qrSvg, renderWgQuick } from './wireguard-config.js';

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
    const found = await this.devices.get(auth, deviceId);
    if (!found.ok) return found;
    const device = found.value;
    if (req.private_key !== undefined) {
      const derived = publicKeyOf(req.private_key);
      // The request schema admits only well-formed keys; this one may still be another's.
      if (derived !== device.wireguard_public_key) {
        return fail(
          'key-mismatch',
          "private_key is not the key of this device's wireguard_public_key",
          {
            errors: [
              { field: 'private_key', message: "does not match the device's wireguard_public_key" },
            ],
          },
        );
      }
    }
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
    const config = renderWgQuick(answer, device.name, req.private_key);
    return ok({
      session_id: answer.session_id,
      node_id: answer.node.id,
      region: answer.region,
      config,
      qr_svg: req.private_key === undefined ? null : await qrSvg(config),
    });
  }
}
