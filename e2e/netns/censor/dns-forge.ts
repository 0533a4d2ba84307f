// sni-block's DNS poisoning, as China's injector does it on the path: a UDP/53 answer crossing the
// border whose question names a blocked name is rewritten so that its A records point at an
// address of the censor's choosing (one A record when the answer had none).
import dnsPacket, { type Answer } from 'dns-packet';

import { nameMatches } from './profiles.js';

export interface Forged {
  name: string;
  payload: Buffer;
}

/** The forged answer for a DNS response naming a blocked name; undefined for anything else. */
export function forgeDnsAnswer(
  payload: Buffer,
  blocked: readonly string[],
  address: string,
): Forged | undefined {
  let msg: dnsPacket.Packet;
  try {
    msg = dnsPacket.decode(payload);
  } catch {
    return undefined;
  }
  if (msg.type !== 'response') return undefined;
  const q = (msg.questions ?? []).find((x) => x.type === 'A' && nameMatches(x.name, blocked));
  if (!q) return undefined;
  const answers: Answer[] = (msg.answers ?? []).filter((a) => a.type !== 'A');
  answers.push({ type: 'A', class: 'IN', name: q.name, ttl: 300, data: address });
  const forged = dnsPacket.encode({
    ...msg,
    flags: (msg.flags ?? 0) & ~0x000f, // NOERROR, whatever the resolver said
    answers,
  });
  return { name: q.name, payload: Buffer.from(forged) };
}
