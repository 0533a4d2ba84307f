// Copies a text to the clipboard and says whether it worked.
import { useState } from 'react';

export function CopyButton(props: { text: string; label: string }) {
  const [result, setResult] = useState<'copied' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setResult('copied');
    } catch {
      setResult('failed');
    }
  };
  return (
    <>
      <button type="button" className="button" onClick={() => void copy()}>
        {props.label}
      </button>
      <span role="status" className="copy-result">
        {result === 'copied'
          ? 'Copied.'
          : result === 'failed'
            ? 'Could not copy: select it and copy it yourself.'
            : ''}
      </span>
    </>
  );
}
