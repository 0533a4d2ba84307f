// A button for something that cannot be undone: it asks first, in place, and keeps the
// keyboard focus on the question and back on the button.
import { useEffect, useRef, useState } from 'react';
import { useWords } from '../i18n/use-words.js';

export function ConfirmButton(props: {
  /** The button's accessible name, e.g. "Revoke Phone". */
  label: string;
  /** Its visible text, when shorter than the label. */
  text?: string;
  question: string;
  confirmText: string;
  busy?: boolean;
  onConfirm: () => void;
}) {
  const { t } = useWords();
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (asking) yes.current?.focus();
    else if (wasAsking.current) opener.current?.focus();
    wasAsking.current = asking;
  }, [asking]);

  if (!asking)
    return (
      <button
        ref={opener}
        type="button"
        className="button button--danger"
        aria-label={props.text ? props.label : undefined}
        aria-disabled={props.busy}
        onClick={() => !props.busy && setAsking(true)}
      >
        {props.text ?? props.label}
      </button>
    );
  return (
    <div role="group" aria-label={props.label} className="confirm">
      <p className="confirm__question">{props.question}</p>
      <button
        ref={yes}
        type="button"
        className="button button--danger"
        onClick={() => {
          setAsking(false);
          props.onConfirm();
        }}
      >
        {props.confirmText}
      </button>
      <button type="button" className="button button--quiet" onClick={() => setAsking(false)}>
        {t('app.account.cancel')}
      </button>
    </div>
  );
}
