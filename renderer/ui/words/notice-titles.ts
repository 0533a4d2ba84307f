// Short titles for the notices the engine and the service send; the message says the rest.
const TITLES: Readonly<Record<string, string>> = {
  failover: 'Moved to another server',
  'cipher-substituted': 'Another cipher is in use',
  'data-cap-reached': 'Data cap reached',
  'data-cap': 'Data cap',
  'split-unavailable': 'Split tunneling is off',
  'udp-blocked': 'UDP is blocked',
  obfuscated: 'Connection disguised',
  'obfuscation-on': 'Connection disguised',
  reconnecting: 'Still reconnecting',
};

export function noticeTitle(code: string): string {
  if (TITLES[code]) return TITLES[code];
  if (code.startsWith('data-cap')) return 'Data cap';
  return 'Notice';
}
