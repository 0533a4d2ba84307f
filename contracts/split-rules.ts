// Split rules on top of the split by country (`netcli split add|list|remove`, `netcli exec`): a
// domain (and its subdomains) or a program that goes `direct` or through the `tunnel` whatever
// the country of where it goes. The shapes every face and the local API share.
import { z } from 'zod';

export const SPLIT_VIAS = ['direct', 'tunnel'] as const;
export type SplitVia = (typeof SPLIT_VIAS)[number];

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * A domain as a person types it: letters in any case, a trailing dot or not, a leading `*.` or
 * `.` (a rule holds for the subdomains anyway); kept lower case without them. One label is a
 * top-level domain (`cn`: every name under it).
 */
export const SplitDomain = z
  .string()
  .trim()
  .transform((s) =>
    s
      .toLowerCase()
      .replace(/^\*?\./, '')
      .replace(/\.$/, ''),
  )
  .pipe(
    z
      .string()
      .max(253)
      .refine((s) => s.length > 0 && s.split('.').every((l) => LABEL.test(l)), {
        message: 'a domain name: labels of letters, digits and dashes, e.g. example.com',
      }),
  );

export const SplitVia = z
  .string()
  .transform((s) => s.toLowerCase())
  .pipe(z.enum(SPLIT_VIAS, { message: 'direct or tunnel' }));

/** A program's path as a person types it: absolute, without `..`; kept as typed otherwise. */
export const SplitAppPath = z
  .string()
  .trim()
  .max(4096)
  .refine((p) => p.startsWith('/') && !p.split('/').includes('..') && !p.includes('\0'), {
    message: 'a program’s absolute path, e.g. /usr/bin/firefox',
  });

const Via = z.enum(SPLIT_VIAS).describe('direct: around the tunnel; tunnel: through it only.');

export const DomainRule = z
  .object({
    domain: z.string().describe('The domain; its subdomains follow the rule too.'),
    via: Via,
  })
  .meta({ id: 'DomainRule' });
export type DomainRule = z.infer<typeof DomainRule>;

export const AppRule = z
  .object({
    app: z.string().describe('The program (its executable’s path); what it starts follows too.'),
    via: Via,
  })
  .meta({ id: 'AppRule' });
export type AppRule = z.infer<typeof AppRule>;

export const SplitRule = z.union([DomainRule, AppRule]).meta({ id: 'SplitRule' });
export type SplitRule = z.infer<typeof SplitRule>;

export const isDomainRule = (r: SplitRule): r is DomainRule => 'domain' in r;
export const isAppRule = (r: SplitRule): r is AppRule => 'app' in r;

/** What a rule is for: `domain example.com`, `app /usr/bin/firefox` (one rule each). */
export function splitRuleTarget(r: SplitRule | SplitRuleTarget): string {
  return 'domain' in r ? `domain ${r.domain}` : `app ${r.app}`;
}

export const SplitRuleRequest = z.union([
  z.strictObject({ domain: SplitDomain, via: SplitVia }),
  z.strictObject({ app: SplitAppPath, via: SplitVia }),
]);
export type SplitRuleRequest = z.input<typeof SplitRuleRequest>;

export const SplitRuleQuery = z.union([
  z.strictObject({ domain: SplitDomain }),
  z.strictObject({ app: SplitAppPath }),
]);
export type SplitRuleTarget = z.output<typeof SplitRuleQuery>;

export const SplitRulesResponse = z
  .object({ rules: z.array(SplitRule) })
  .meta({ id: 'SplitRulesResponse' });
export type SplitRulesResponse = z.infer<typeof SplitRulesResponse>;

/** `netcli exec`: the process (netcli's own, about to start the program) and its way. */
export const SplitExecRequest = z.strictObject({
  pid: z.number().int().min(2).max(4_194_304),
  via: SplitVia,
});

/** A DNS name as names compare: lower case, without the root's dot (`Example.COM.` is `example.com`). */
export function canonicalName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/**
 * The rule that decides a name: the one for the name itself or its nearest parent domain (the
 * longest match), null when none does. Names in any case, with or without the root's dot.
 */
export function splitRuleFor(rules: readonly SplitRule[], name: string): DomainRule | null {
  const n = canonicalName(name);
  let best: DomainRule | null = null;
  for (const r of rules.filter(isDomainRule)) {
    if (n !== r.domain && !n.endsWith(`.${r.domain}`)) continue;
    if (!best || r.domain.length > best.domain.length) best = r;
  }
  return best;
}
