// Test kit: a control plane that misbehaves on purpose (a script of the test's), run on a netcli
// host's own loopback and named as that host's service: the engine's defences against what a
// control plane may send are tested against the real daemon, with nothing in between.
import type { NetcliHost } from './netcli-host.js';
import type { ManagedProcess } from './test-network.js';
import type { Testbed } from './testbed.js';

/**
 * Runs `script` (Node, listening on 127.0.0.1:`port` and printing a line with `listening` when it
 * does) in `host`'s namespace and inits `host`'s netcli to it. Plain HTTP: on loopback nothing is
 * on the way, and the stand-in itself is the party under test.
 */
export async function startStandInControlPlane(
  bed: Testbed,
  host: NetcliHost,
  script: string,
  port: number,
): Promise<ManagedProcess> {
  const standIn = bed.net.spawn(host.host, 'control-plane-stand-in', [
    process.execPath,
    '-e',
    script,
  ]);
  await bed.net.waitFor('the stand-in control plane to listen', 10_000, () =>
    standIn.output().includes('listening') ? true : undefined,
  );
  host.json('init', '--protocol', 'wireguard', '--endpoint', `http://127.0.0.1:${port}`);
  return standIn;
}
