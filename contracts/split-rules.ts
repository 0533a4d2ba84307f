// Split rules on top of the split by country (`netcli split add|list|remove`): a domain (and its
// subdomains) that goes `direct` or through the `tunnel` whatever its country, as the engine's
// resolver sees its addresses. The shapes every face and the local API share.
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

export const SplitRule = z
  .object({
    domain: z.string().describe('The domain; its subdomains follow the rule too.'),
    via: z.enum(SPLIT_VIAS).describe('direct: around the tunnel; tunnel: through it.'),
  })
  .meta({ id: 'SplitRule' });
export type SplitRule = z.infer<typeof SplitRule>;

export const SplitRuleRequest = z.strictObject({ domain: SplitDomain, via: SplitVia });
export type SplitRuleRequest = z.input<typeof SplitRuleRequest>;

export const SplitRuleQuery = z.strictObject({ domain: SplitDomain });

export const SplitRulesResponse = z
  .object({ rules: z.array(SplitRule) })
  .meta({ id: 'SplitRulesResponse' });
export type SplitRulesResponse = z.infer<typeof SplitRulesResponse>;

/**
 * The rule that decides a name: the one for the name itself or its nearest parent domain (the
 * longest match), null when none does. Names in any case, with or without the root's dot.
 */
export function splitRuleFor(rules: readonly SplitRule[], name: string): SplitRule | null {
  const n = name.toLowerCase().replace(/\.$/, '');
  let best: SplitRule | null = null;
  for (const r of rules) {
    if (n !== r.domain && !n.endsWith(`.${r.domain}`)) continue;
    if (!best || r.domain.length > best.domain.length) best = r;
  }
  return best;
}
