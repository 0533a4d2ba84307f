// The terminal UI's screen: the controller's state drawn by the presentational parts, and the
// keys handed to the controller through the key map (quitting is the screen's own).
import { Box, useApp, useInput } from 'ink';
import { useMemo, useSyncExternalStore } from 'react';
import type { TuiController } from './controller.js';
import { DnsInput, HelpLine, Messages } from './footer.js';
import { Header } from './header.js';
import { dnsKeyOf, intentOf, keysOf, rulesKeyOf } from './keymap.js';
import { RegionList } from './region-list.js';
import { RuleInput, SplitRulesPanel } from './split-rules.js';
import { wordsOf } from './language.js';
import { rulesStep, type TuiState } from './state.js';
import { WordsProvider } from './words.js';

/** The controller's state, drawn again on every change. */
export function useTuiState(controller: TuiController): TuiState {
  return useSyncExternalStore(controller.subscribe, controller.getState);
}

export function App({ controller }: { controller: TuiController }) {
  const state = useTuiState(controller);
  // The language follows the setting live: a change (here, in netcli, in the app) draws anew.
  const language = controller.language(state);
  const words = useMemo(() => wordsOf(language), [language]);
  const { exit } = useApp();
  useInput((typed, pressed) => {
    for (const [input, key] of keysOf(typed, pressed)) {
      // The state now, not the one this render saw: keys can come faster than renders.
      if (controller.getState().dnsEdit) {
        const k = dnsKeyOf(input, key);
        if (k) void controller.dnsKey(k);
        continue;
      }
      // The split rules, while open, take the keys: the list's, or the prompts'.
      const step = rulesStep(controller.getState());
      if (step) {
        const k = rulesKeyOf(input, key, step);
        if (k) void controller.rulesKey(k);
        continue;
      }
      const intent = intentOf(input, key);
      if (intent === 'quit') {
        exit();
        return;
      }
      if (intent) void controller.handle(intent);
    }
  });
  return (
    <WordsProvider words={words}>
      <Box flexDirection="column">
        <Header state={state} />
        {state.splitRules ? <SplitRulesPanel state={state} /> : <RegionList state={state} />}
        <Messages state={state} />
        <DnsInput state={state} />
        <RuleInput state={state} />
        <HelpLine state={state} />
      </Box>
    </WordsProvider>
  );
}
