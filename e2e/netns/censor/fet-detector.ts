// The fully-encrypted-traffic detector of Wu et al., USENIX Security 2023 ("How the Great Firewall of
// China Detects and Blocks Fully Encrypted Traffic"), Algorithm 1: exemption rules Ex1-Ex5.

const printable = (b: number): boolean => b >= 0x20 && b <= 0x7e;

function popcount(b: number): number {
  let n = 0;
  for (let x = b; x; x >>= 1) n += x & 1;
  return n;
}

export interface Verdict {
  /** True when no exemption applies: the GFW would consider blocking the connection. */
  flagged: boolean;
  exemptions: string[];
}

/** Applies the paper's exemption rules to the first data packet of a TCP connection. */
export function classifyFirstPacket(p: Uint8Array): Verdict {
  const ex: string[] = [];
  if (p.length === 0) return { flagged: false, exemptions: ['empty'] };
  // Ex1: average set bits per byte <= 3.4 or >= 4.6.
  let bits = 0;
  for (const b of p) bits += popcount(b);
  const avg = bits / p.length;
  if (avg <= 3.4 || avg >= 4.6) ex.push('Ex1');
  // Ex2: the first six bytes are printable ASCII.
  if (p.length >= 6 && [...p.subarray(0, 6)].every(printable)) ex.push('Ex2');
  // Ex3: more than half of the bytes are printable.
  if ([...p].filter(printable).length * 2 > p.length) ex.push('Ex3');
  // Ex4: more than 20 contiguous printable bytes.
  let run = 0;
  let longest = 0;
  for (const b of p) {
    run = printable(b) ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  if (longest > 20) ex.push('Ex4');
  // Ex5: TLS or HTTP fingerprints.
  const tls = p.length >= 3 && (p[0] === 0x16 || p[0] === 0x17) && p[1] === 0x03 && p[2]! <= 0x09;
  const head = Buffer.from(p.subarray(0, 5)).toString('latin1');
  const http = ['GET ', 'PUT ', 'POST ', 'HEAD '].some((m) => head.startsWith(m));
  if (tls || http) ex.push('Ex5');
  return { flagged: ex.length === 0, exemptions: ex };
}
