// The split rules in words: each rule's way, what it is for, and its Remove button's name.
import { isDomainRule, type SplitRule, type SplitVia } from '../../../contracts/split-rules.js';

/** A rule's way, at a glance. */
export const SPLIT_VIA_WORDS: Readonly<Record<SplitVia, string>> = {
  direct: 'Direct (around the tunnel)',
  tunnel: 'Through the tunnel only',
};

/** What each way does, beside its choice. */
export const SPLIT_VIA_HINTS: Readonly<Record<SplitVia, string>> = {
  direct: 'Straight out of this network, even where the split by country would use the tunnel.',
  tunnel: 'Always through the tunnel, even to your home country.',
};

/** Said when there are no rules. */
export const NO_SPLIT_RULES_WORDS = 'No split rules: only the split by country decides.';

export interface SplitRuleRow {
  /** Unique among the rules (one rule per domain, one per program). */
  key: string;
  /** The domain, or the program's path. */
  title: string;
  /** "Website and its subdomains · Direct (around the tunnel)". */
  detail: string;
  /** The Remove button's accessible name. */
  removeLabel: string;
  rule: SplitRule;
}

export function splitRuleRows(rules: readonly SplitRule[]): SplitRuleRow[] {
  return rules.map((rule) => {
    const domain = isDomainRule(rule);
    const title = domain ? rule.domain : rule.app;
    const what = domain ? 'Website and its subdomains' : 'Program and what it starts';
    return {
      key: `${domain ? 'domain' : 'app'} ${title}`,
      title,
      detail: `${what} · ${SPLIT_VIA_WORDS[rule.via]}`,
      removeLabel: `Remove the rule for ${title}`,
      rule,
    };
  });
}
