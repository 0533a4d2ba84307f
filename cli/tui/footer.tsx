// The terminal UI's bottom: the engine link's trouble (with how to start the engine), what the
// last key is doing or did, the engine's notices, the DNS input, and the help line (the keys of
// the split rules while they are open).
import { Box } from 'ink';
import { Text } from './text.js';
import { DNS_HELP, HELP, RULES_HELP, helpText } from './keymap.js';
import { rulesStep, visibleNotices, type TuiState } from './state.js';

function Hints({ hints }: { hints: readonly string[] }) {
  return (
    <>
      {hints.map((h) => (
        <Text key={h} color="gray">
          hint: {h}
        </Text>
      ))}
    </>
  );
}

export function Messages({ state }: { state: TuiState }) {
  const { link, pending, outcome } = state;
  return (
    <Box flexDirection="column" marginTop={1}>
      {link.state === 'down' ? (
        <>
          <Text color="red">The engine does not answer: {link.failure.message}</Text>
          <Hints hints={link.failure.hints} />
        </>
      ) : null}
      {pending ? <Text color="yellow">{pending.label}…</Text> : null}
      {outcome ? (
        <>
          <Text color={outcome.kind === 'error' ? 'red' : undefined}>
            {outcome.kind === 'error' ? `Error: ${outcome.text}` : outcome.text}
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
          Note: {n.message}
        </Text>
      ))}
    </Box>
  );
}

export function DnsInput({ state }: { state: TuiState }) {
  const edit = state.dnsEdit;
  if (!edit) return null;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text>
        DNS resolver (now {state.config?.dns ?? '?'}): <Text bold>{edit.text}</Text>
        <Text inverse> </Text>
      </Text>
      {edit.problem ? <Text color="red">{edit.problem}</Text> : null}
    </Box>
  );
}

function help(state: TuiState) {
  if (state.dnsEdit) return DNS_HELP;
  const step = rulesStep(state);
  return step ? RULES_HELP[step] : HELP;
}

export function HelpLine({ state }: { state: TuiState }) {
  return (
    <Box marginTop={1}>
      <Text color="gray" wrap="truncate-end">
        {helpText(help(state))}
      </Text>
    </Box>
  );
}
