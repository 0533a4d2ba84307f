// The terminal UI's Text: ink's, with every string in it screened as it is drawn
// (cli/terminal-text.ts), so that what the engine passes on from the control plane (region
// names, notices, an error's detail) is shown, never obeyed. The UI's parts draw text only
// through it (eslint.config.js refuses ink's own Text in cli/tui).
import { Text as InkText, type TextProps } from 'ink';
import { Children, Fragment, cloneElement, isValidElement, type ReactNode } from 'react';
import { plainLine } from '../terminal-text.js';

/** Each string one line without controls; fragments searched too (a Text screens its own). */
function screened(children: ReactNode): ReactNode {
  return Children.map(children, (child) => {
    if (typeof child === 'string') return plainLine(child);
    if (isValidElement<{ children?: ReactNode }>(child) && child.type === Fragment)
      return cloneElement(child, undefined, screened(child.props.children));
    return child;
  });
}

export function Text({ children, ...props }: TextProps) {
  return <InkText {...props}>{screened(children)}</InkText>;
}
