// The terminal UI's Text: ink's, with every string in it screened as it is drawn
// (cli/terminal-text.ts), so that what the engine passes on from the control plane (region
// names, notices, an error's detail) is shown, never obeyed. The UI's parts draw text only
// through it (eslint.config.js refuses ink's own Text in cli/tui). In Persian, the Latin runs
// of what it draws are isolated once screened (language.ts isolateLatin): the only bidi
// controls that reach the screen are its own, balanced.
import { Text as InkText, type TextProps } from 'ink';
import { Children, Fragment, cloneElement, isValidElement, type ReactNode } from 'react';
import { plainLine } from '../terminal-text.js';
import { isolateLatin } from './language.js';
import { useWords } from './words.js';

/** Each string one line without controls; fragments searched too (a Text screens its own). */
function screened(children: ReactNode, isolate: boolean): ReactNode {
  return Children.map(children, (child) => {
    if (typeof child === 'string')
      return isolate ? isolateLatin(plainLine(child)) : plainLine(child);
    if (isValidElement<{ children?: ReactNode }>(child) && child.type === Fragment)
      return cloneElement(child, undefined, screened(child.props.children, isolate));
    return child;
  });
}

export function Text({ children, ...props }: TextProps) {
  const { language } = useWords();
  return <InkText {...props}>{screened(children, language === 'fa')}</InkText>;
}
