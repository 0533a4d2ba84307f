// The terminal UI's split rules (u): each rule on top of the split by country, what it is for
// (a domain and its subdomains, or a program) and its way, the selected one marked; below, the
// prompts of a rule being added (a): what it is for, then its way.
import { Box } from 'ink';
import type { SplitRule } from '../../contracts/index.js';
import { plainLine } from '../terminal-text.js';
import { LIST_ROWS, windowStart } from './region-list.js';
import { Text } from './text.js';
import { ruleWords, type TuiState } from './state.js';

/** How wide the column of what a rule is for is. */
const TARGET_WIDTH = 48;

const WAY_REMARKS = { direct: 'around the tunnel', tunnel: 'through the tunnel only' } as const;

/** A cell of `width`: a longer text keeps its end (a path's program), marked as cut. */
export function fitEnd(text: string, width: number): string {
  return text.length > width ? `…${text.slice(text.length - width + 1)}` : text.padEnd(width);
}

/** The words of one rule, columns padded: kind, what it is for, way, remark. */
export function ruleCells(rule: SplitRule): [string, string, string, string] {
  const isDomain = 'domain' in rule;
  return [
    (isDomain ? 'domain' : 'program').padEnd(7),
    // Measured as drawn: the controls a name may hold are gone before the columns are padded.
    fitEnd(plainLine(isDomain ? rule.domain : rule.app), TARGET_WIDTH),
    rule.via.padEnd(7),
    WAY_REMARKS[rule.via],
  ];
}

export function SplitRulesPanel({ state }: { state: TuiState }) {
  const panel = state.splitRules;
  if (!panel) return null;
  const rules = panel.rules ?? [];
  const start = windowStart(rules.length, panel.cursor, LIST_ROWS);
  const shown = rules.slice(start, start + LIST_ROWS);
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>
        {'  '}
        {'Split rules'.padEnd(7 + 1 + TARGET_WIDTH)} WAY
      </Text>
      {panel.failure ? (
        <>
          <Text color="red">Split rules unavailable: {panel.failure.message}</Text>
          {panel.failure.hints.map((h) => (
            <Text key={h} color="gray">
              hint: {h}
            </Text>
          ))}
        </>
      ) : panel.rules === null ? (
        <Text color="gray">{'  '}Reading the split rules…</Text>
      ) : rules.length === 0 ? (
        <Text color="gray">
          {'  '}No split rules: only the split by country decides (a adds one)
        </Text>
      ) : null}
      {shown.map((rule, i) => {
        const selected = start + i === panel.cursor;
        const [kind, target, via, remark] = ruleCells(rule);
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
          {start + 1}-{start + shown.length} of {rules.length}
        </Text>
      ) : null}
    </Box>
  );
}

/** The prompts of a rule being added. */
export function RuleInput({ state }: { state: TuiState }) {
  const draft = state.splitRules?.draft;
  if (!draft) return null;
  if (draft.step === 'via') {
    return (
      <Box marginTop={1}>
        <Text wrap="truncate-start">
          <Text bold>{ruleWords(draft.target)}</Text>: d direct (around the tunnel) or t tunnel
          (through it only)
        </Text>
      </Box>
    );
  }
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text wrap="truncate-start">
        Split rule for (a domain, or a program’s path from /): <Text bold>{draft.text}</Text>
        <Text inverse> </Text>
      </Text>
      {draft.problem ? <Text color="red">{draft.problem}</Text> : null}
    </Box>
  );
}
