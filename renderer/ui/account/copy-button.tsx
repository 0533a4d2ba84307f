// Copies a text to the clipboard and says whether it worked.
import { useState } from 'react';
import { useWords } from '../i18n/use-words.js';

export function CopyButton(props: { text: string; label: string }) {
  const { t } = useWords();
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
          ? t('app.account.copied')
          : result === 'failed'
            ? t('app.account.copyFailed')
            : ''}
      </span>
    </>
  );
}
