// The split rules on top of the split by country, for Settings to list, add and remove: a domain
// (and its subdomains) or a program (and what it starts) sent direct or through the tunnel only.
// What is typed is checked with the contracts' own schemas before the engine sees it; the
// engine's refusal of a rule is shown at the field it was typed in.
import type { FieldError } from '../../contracts/problem.js';
import {
  isDomainRule,
  splitRuleTarget,
  type SplitRule,
  type SplitVia,
} from '../../contracts/split-rules.js';
import type { ShownError } from './error-words.js';
import { validateSplitAppPath, validateSplitDomain } from './input-checks.js';
import type { EngineSlice, SliceDeps } from './slice.js';
import { storeWords } from './store-words.js';
import { translator, type Translate } from '../../contracts/i18n/translator.js';

/** What a rule is for: a domain (a website) or a program; also the name of its form's field. */
export type SplitRuleKind = 'domain' | 'app';

/** The fields the split rules' form shows refusals at (the engine's names for them). */
export const SPLIT_RULE_FIELDS: readonly string[] = ['domain', 'app', 'via'];

/** Said at the program's field when the engine cannot put programs on a way here. */
export const programRulesUnsupported = (t: Translate = translator('en')) =>
  t('app.splitRules.programsUnsupported');
export const PROGRAM_RULES_UNSUPPORTED = programRulesUnsupported();

export interface SplitRulesReplica {
  /** The rules as the engine last listed them (domains first, then programs); null until read. */
  splitRules: SplitRule[] | null;
}

export interface SplitRulesActions {
  loadSplitRules(): Promise<void>;
  /**
   * Sends `text` (a domain, or a program's full path) `via` one way: checked first, refused at
   * its field. A rule for the same domain or program is replaced. Whether the engine took it.
   */
  addSplitRule(kind: SplitRuleKind, text: string, via: SplitVia): Promise<boolean>;
  removeSplitRule(rule: SplitRule): Promise<void>;
}

export const EMPTY_SPLIT_RULES: SplitRulesReplica = { splitRules: null };

/** The engine's refusal of a rule as the refusal of the field it was typed in. */
function refusalAt(kind: SplitRuleKind, shown: ShownError, t: Translate): FieldError {
  if (kind === 'app' && shown.code === 'not-supported')
    return { field: kind, message: programRulesUnsupported(t) };
  // A request the engine's schema refused: its own words per field say more than the summary.
  if (shown.code === 'validation-failed' && shown.errors.length > 0)
    return { field: kind, message: shown.errors.map((e) => e.message).join('; ') };
  return { field: kind, message: shown.words };
}

export const createSplitRulesSlice =
  ({
    transport,
    calls,
  }: SliceDeps): EngineSlice<SplitRulesReplica & { actions: SplitRulesActions }> =>
  (set, get) => {
    const load = async () => {
      const { rules } = await transport.call('listSplitRules', {});
      set({ splitRules: rules });
    };
    /** Refusals of other fields than the rules' form's stay shown. */
    const withoutOurs = (errors: FieldError[]) =>
      errors.filter((e) => !SPLIT_RULE_FIELDS.includes(e.field));
    const setOwnError = (error: FieldError | null) =>
      set((s) => ({ fieldErrors: [...withoutOurs(s.fieldErrors), ...(error ? [error] : [])] }));

    return {
      ...EMPTY_SPLIT_RULES,
      actions: {
        async loadSplitRules() {
          try {
            await load();
          } catch (e) {
            calls.fail(e);
          }
        },

        async addSplitRule(kind, text, via) {
          const checked =
            kind === 'domain'
              ? validateSplitDomain(text, storeWords(get()))
              : validateSplitAppPath(text, storeWords(get()));
          if (!checked.ok) {
            setOwnError(checked.error);
            return false;
          }
          let done = false;
          await calls.exclusive('splitRules', async () => {
            setOwnError(null);
            let rule: SplitRule;
            try {
              rule = await transport.call('addSplitRule', {
                body:
                  kind === 'domain' ? { domain: checked.value, via } : { app: checked.value, via },
              });
            } catch (e) {
              setOwnError(refusalAt(kind, calls.describe(e), storeWords(get())));
              return;
            }
            done = true;
            try {
              await load();
            } catch {
              // The engine took it: its answer joins the list as it was (in the engine's order
              // once read again).
              const key = splitRuleTarget(rule);
              set((s) => ({
                splitRules: [
                  ...(s.splitRules ?? []).filter((r) => splitRuleTarget(r) !== key),
                  rule,
                ],
              }));
            }
          });
          return done;
        },

        async removeSplitRule(rule) {
          await calls.exclusive('splitRules', async () => {
            set({ error: null });
            const key = splitRuleTarget(rule);
            let removed = false;
            try {
              await transport.call('removeSplitRule', {
                query: isDomainRule(rule) ? { domain: rule.domain } : { app: rule.app },
              });
              removed = true;
            } catch (e) {
              calls.fail(e);
            }
            try {
              await load();
            } catch {
              // The error shown is the remove's, if any; a rule removed leaves the list anyway.
              if (removed)
                set((s) => ({
                  splitRules: s.splitRules?.filter((r) => splitRuleTarget(r) !== key) ?? null,
                }));
            }
          });
        },
      },
    };
  };
