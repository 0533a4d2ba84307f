// The terminal UI's bottom: the engine link's trouble (with how to start the engine), what the
// last key is doing or did, the engine's notices, the DNS input, and the help line (the keys of
// the split rules while they are open).
import { Box } from 'ink';
import { noticeText } from '../../contracts/words/notices.js';
import { Text } from './text.js';
import { dnsHelp, helpText, mainHelp, rulesHelp } from './keymap.js';
import type { TuiWords } from './language.js';
import { rulesStep, visibleNotices, type TuiState } from './state.js';
import { useWords } from './words.js';

function Hints({ hints }: { hints: readonly string[] }) {
  const { t } = useWords();
  return (
    <>
      {hints.map((h) => (
        <Text key={h} color="gray">
          {t('tui.messages.hint', { hint: h })}
        </Text>
      ))}
    </>
  );
}

export function Messages({ state }: { state: TuiState }) {
  const { t } = useWords();
  const { link, pending, outcome } = state;
  return (
    <Box flexDirection="column" marginTop={1}>
      {link.state === 'down' ? (
        <>
          <Text color="red">
            {t('tui.messages.engineSilent', { message: link.failure.message })}
          </Text>
          <Hints hints={link.failure.hints} />
        </>
      ) : null}
      {pending ? (
        <Text color="yellow">{t('tui.messages.pending', { label: pending.label })}</Text>
      ) : null}
      {outcome ? (
        <>
          <Text color={outcome.kind === 'error' ? 'red' : undefined}>
            {outcome.kind === 'error'
              ? t('tui.messages.error', { message: outcome.text })
              : outcome.text}
          </Text>
          {(outcome.more ?? []).map((line) => (
            <Text key={line} bold>
              {'  '}
              {line}
            </Text>
          ))}
          <Hints hints={outcome.hints} />
        </>
      ) : null}
      {visibleNotices(state).map((n) => (
        <Text key={`${n.code}:${n.message}`} color="yellow">
          {t('tui.messages.note', { message: noticeText(n, t) })}
        </Text>
      ))}
    </Box>
  );
}

export function DnsInput({ state }: { state: TuiState }) {
  const { t } = useWords();
  const edit = state.dnsEdit;
  if (!edit) return null;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text>
        {t('tui.messages.dnsPrompt', { value: state.config?.dns ?? '?' })}{' '}
        <Text bold>{edit.text}</Text>
        <Text inverse> </Text>
      </Text>
      {edit.problem ? <Text color="red">{edit.problem}</Text> : null}
    </Box>
  );
}

/** The keys of the help line now: the DNS input's, the split rules', or the screen's. */
export function helpOf(state: TuiState, { t }: TuiWords) {
  if (state.dnsEdit) return dnsHelp(t);
  const step = rulesStep(state);
  return step ? rulesHelp(t, step) : mainHelp(t);
}

export function HelpLine({ state }: { state: TuiState }) {
  const words = useWords();
  return (
    <Box marginTop={1}>
      <Text color="gray" wrap="truncate-end">
        {helpText(helpOf(state, words))}
      </Text>
    </Box>
  );
}
