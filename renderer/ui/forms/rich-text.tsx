// A catalog's words with some of them in bold: `<b>…</b>` in the text (the words of another
// app's buttons, say) become <strong>; everything else stays text (React escapes it).
import { Fragment, type ReactNode } from 'react';

export function richText(text: string): ReactNode[] {
  return text
    .split(/<b>(.*?)<\/b>/)
    .map((part, i) =>
      i % 2 === 1 ? <strong key={i}>{part}</strong> : <Fragment key={i}>{part}</Fragment>,
    );
}
