// The terminal UI's split rules (u): each rule on top of the split by country, what it is for
// (a domain and its subdomains, or a program) and its way, the selected one marked; below, the
// prompts of a rule being added (a): what it is for, then its way.
import { Box } from 'ink';
import type { SplitRule } from '../../contracts/index.js';
import { plainLine } from '../terminal-text.js';
import { fitEnd, padEnd, textWidth, wordsOf, type TuiWords } from './language.js';
import { LIST_ROWS, rangeWords, windowStart } from './region-list.js';
import { Text } from './text.js';
import { ruleWords, type TuiState } from './state.js';
import { useWords } from './words.js';

export { fitEnd } from './language.js';

/** How wide the column of what a rule is for is. */
const TARGET_WIDTH = 48;

/** The widths of the kind and way columns: their longest words in the language, 7 at least. */
function columns({ t }: TuiWords): { kind: number; via: number } {
  const widest = (...words: string[]) => Math.max(7, ...words.map(textWidth));
  return {
    kind: widest(t('tui.rules.domain'), t('tui.rules.program')),
    via: widest(t('tui.rules.via.direct'), t('tui.rules.via.tunnel')),
  };
}

/** The words of one rule, columns padded: kind, what it is for, way, remark. */
export function ruleCells(
  rule: SplitRule,
  words: TuiWords = wordsOf('en'),
): [string, string, string, string] {
  const { t } = words;
  const width = columns(words);
  const isDomain = 'domain' in rule;
  return [
    padEnd(isDomain ? t('tui.rules.domain') : t('tui.rules.program'), width.kind),
    // Measured as drawn: the controls a name may hold are gone before the columns are padded.
    fitEnd(plainLine(isDomain ? rule.domain : rule.app), TARGET_WIDTH),
    padEnd(t(`tui.rules.via.${rule.via}`), width.via),
    t(`tui.rules.remarks.${rule.via}`),
  ];
}

export function SplitRulesPanel({ state }: { state: TuiState }) {
  const words = useWords();
  const { t } = words;
  const panel = state.splitRules;
  if (!panel) return null;
  const rules = panel.rules ?? [];
  const start = windowStart(rules.length, panel.cursor, LIST_ROWS);
  const shown = rules.slice(start, start + LIST_ROWS);
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>
        {'  '}
        {padEnd(t('tui.rules.title'), columns(words).kind + 1 + TARGET_WIDTH)} {t('tui.rules.way')}
      </Text>
      {panel.failure ? (
        <>
          <Text color="red">{t('tui.rules.unavailable', { message: panel.failure.message })}</Text>
          {panel.failure.hints.map((h) => (
            <Text key={h} color="gray">
              {t('tui.messages.hint', { hint: h })}
            </Text>
          ))}
        </>
      ) : panel.rules === null ? (
        <Text color="gray">
          {'  '}
          {t('tui.rules.reading')}
        </Text>
      ) : rules.length === 0 ? (
        <Text color="gray">
          {'  '}
          {t('tui.rules.none')}
        </Text>
      ) : null}
      {shown.map((rule, i) => {
        const selected = start + i === panel.cursor;
        const [kind, target, via, remark] = ruleCells(rule, words);
        return (
          <Text
            key={'domain' in rule ? `domain:${rule.domain}` : `app:${rule.app}`}
            color={selected ? 'cyan' : undefined}
            bold={selected}
            wrap="truncate-end"
          >
            {selected ? '› ' : '  '}
            {kind} {target} {via} <Text color="gray">{remark}</Text>
          </Text>
        );
      })}
      {rules.length > shown.length ? (
        <Text color="gray">
          {'  '}
          {rangeWords(start, shown.length, rules.length, words)}
        </Text>
      ) : null}
    </Box>
  );
}

/** The prompts of a rule being added. */
export function RuleInput({ state }: { state: TuiState }) {
  const { t } = useWords();
  const draft = state.splitRules?.draft;
  if (!draft) return null;
  if (draft.step === 'via') {
    return (
      <Box marginTop={1}>
        <Text wrap="truncate-start">
          {t('tui.rules.viaPrompt', { rule: ruleWords(draft.target, t) })}
        </Text>
      </Box>
    );
  }
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text wrap="truncate-start">
        {t('tui.rules.targetPrompt')} <Text bold>{draft.text}</Text>
        <Text inverse> </Text>
      </Text>
      {draft.problem ? <Text color="red">{draft.problem}</Text> : null}
    </Box>
  );
}
