// Brings up one WireGuard interface with Debian's userspace wireguard-go (our kernels have no
// WireGuard module) and configures it over its UAPI socket, never through files.
import { checkInterfaceName } from '../../platform/os/arguments.js';
import { UapiClient } from '../../platform/os/uapi.js';
import type { RelayOs } from '../os.js';

export interface WireGuardInterface {
  name: string;
  uapi: UapiClient;
  /** Stops wireguard-go, which removes the interface and its socket. */
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;
const POLL_MS = 25;

export async function startWireGuard(
  os: Pick<RelayOs, 'wireguard' | 'links' | 'routes'>,
  opts: {
    name: string;
    privateKey: string;
    listenPort: number;
    /** Addresses of the interface itself (CIDR). */
    addresses: string[];
    /** Further routes to the interface (CIDR). */
    routes: string[];
    mtu: number;
    onExit: (code: number | null) => void;
  },
): Promise<WireGuardInterface> {
  const name = checkInterfaceName(opts.name);
  if ((await os.wireguard.sockets()).includes(name)) {
    throw new Error(
      `the UAPI socket of ${name} exists: another WireGuard interface named ${name} is running on this machine`,
    );
  }
  const proc = os.wireguard.start(name);
  void proc.exited.then((code) => opts.onExit(code));

  const close = async () => {
    await proc.stop();
    // wireguard-go removes its TUN device on exit; make sure of it after a SIGKILL too.
    await os.links.delete(name).catch(() => undefined);
  };

  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await os.wireguard.sockets()).includes(name)) {
      if (proc.hasExited()) throw new Error(`wireguard-go exited: ${proc.output() || 'no output'}`);
      if (Date.now() > deadline)
        throw new Error(`wireguard-go did not open the UAPI socket of ${name}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const uapi = new UapiClient(os.wireguard, name);
    await uapi.set({
      privateKey: opts.privateKey,
      listenPort: opts.listenPort,
      replacePeers: true,
    });
    for (const address of opts.addresses) await os.links.setAddress(name, address);
    await os.links.setMtu(name, opts.mtu);
    await os.links.setUp(name, true);
    for (const route of opts.routes) await os.routes.add({ destination: route, dev: name });
    return { name, uapi, close };
  } catch (e) {
    await close();
    throw e;
  }
}
