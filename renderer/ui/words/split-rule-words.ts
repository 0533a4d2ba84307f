// The split rules in words: each rule's way, what it is for, and its Remove button's name.
import type { Translate } from '../../../contracts/i18n/translator.js';
import { isDomainRule, type SplitRule, type SplitVia } from '../../../contracts/split-rules.js';
import { english } from './english.js';

/** A rule's way, at a glance. */
export function splitViaWords(via: SplitVia, t: Translate = english): string {
  return t(`app.splitRules.via.${via}`);
}

/** What each way does, beside its choice. */
export function splitViaHint(via: SplitVia, t: Translate = english): string {
  return t(`app.splitRules.viaHints.${via}`);
}

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

export function splitRuleRows(rules: readonly SplitRule[], t: Translate = english): SplitRuleRow[] {
  return rules.map((rule) => {
    const domain = isDomainRule(rule);
    const title = domain ? rule.domain : rule.app;
    const what = t(domain ? 'app.splitRules.website' : 'app.splitRules.program');
    return {
      key: `${domain ? 'domain' : 'app'} ${title}`,
      title,
      detail: `${what}${t('app.dot')}${splitViaWords(rule.via, t)}`,
      removeLabel: t('app.splitRules.removeLabel', { target: title }),
      rule,
    };
  });
}
