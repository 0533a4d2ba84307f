// A DNS resolver of the test internet for the censor's tests: on a host (the home network's
// resolver, or one abroad), it answers A queries from a fixed table over UDP/53 (NXDOMAIN for
// other names); and a one-shot lookup from inside a host.
import { createRequire } from 'node:module';

import type { ManagedProcess, TestNetwork } from '../test-network.js';

/** The spawned script is plain JS: it loads dns-packet from where this module finds it. */
const DNS_PACKET = createRequire(import.meta.url).resolve('dns-packet');

const SERVER = `
const dnsPacket = require(process.env.DNS_PACKET);
const records = JSON.parse(process.env.RECORDS);
const s = require('node:dgram').createSocket('udp4');
s.on('message', (m, from) => {
  let q;
  try { q = dnsPacket.decode(m); } catch { return; }
  const question = (q.questions || [])[0];
  const name = question ? question.name.toLowerCase() : '';
  const address = records[name];
  s.send(dnsPacket.encode({
    type: 'response', id: q.id, flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (address ? 0 : 3),
    questions: q.questions,
    answers: address && question.type === 'A' ? [{ type: 'A', class: 'IN', name: question.name, ttl: 60, data: address }] : [],
  }), from.port, from.address);
});
s.bind(53, '0.0.0.0', () => console.log('listening'));`;

/** Starts the resolver on `host` and waits until it answers. */
export async function startResolver(
  net: TestNetwork,
  host: string,
  records: Readonly<Record<string, string>>,
): Promise<ManagedProcess> {
  const proc = net.spawn(host, `resolver-${host}`, [process.execPath, '-e', SERVER], {
    DNS_PACKET,
    RECORDS: JSON.stringify(records),
  });
  await net.waitFor(`the resolver on ${host}`, 5000, () => {
    if (proc.child.exitCode !== null) throw new Error(proc.output());
    return proc.output().includes('listening') ? true : undefined;
  });
  return proc;
}

/** The A records `server` gives for `name`, asked from `host` (an error code when none came). */
export function lookup(
  net: TestNetwork,
  host: string,
  server: string,
  name: string,
): string[] | string {
  const script = `
    const r = new (require('node:dns').promises.Resolver)({ timeout: 1000, tries: 2 });
    r.setServers(['${server}']);
    r.resolve4('${name}').then((a) => process.stdout.write(JSON.stringify(a)), (e) => process.stdout.write(JSON.stringify(e.code)));`;
  return JSON.parse(net.exec(host, [process.execPath, '-e', script])) as string[] | string;
}
