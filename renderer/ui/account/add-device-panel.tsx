// Phones and tablets on the official WireGuard apps: a button that opens the form, then the QR
// code of the device just added, until Done. The keyboard focus follows: into the form, to the
// result, and back to the button.
import { useEffect, useRef, useState } from 'react';
import { useWords } from '../i18n/use-words.js';
import { useActions, useEngine } from '../store-context.js';
import { AddDeviceForm } from './add-device-form.js';
import { AddedDevice } from './added-device.js';

export function AddDevicePanel() {
  const { t } = useWords();
  const added = useEngine((s) => s.addedDevice);
  const { finishAddDevice } = useActions();
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const form = useRef<HTMLDivElement>(null);
  const shown = added ? 'result' : open ? 'form' : 'button';
  const before = useRef(shown);
  useEffect(() => {
    if (shown === 'form' && before.current === 'button')
      form.current?.querySelector<HTMLInputElement>('input:checked, input')?.focus();
    if (shown === 'button' && before.current !== 'button') opener.current?.focus();
    before.current = shown;
  }, [shown]);
  // The form that led to a result is done: Done goes back to the button.
  useEffect(() => {
    if (added) setOpen(false);
  }, [added]);

  if (added) return <AddedDevice added={added} />;
  if (open)
    return (
      <div ref={form}>
        <AddDeviceForm
          onCancel={() => {
            finishAddDevice();
            setOpen(false);
          }}
        />
      </div>
    );
  return (
    <>
      <p>{t('app.addDevice.intro')}</p>
      <button ref={opener} type="button" className="button" onClick={() => setOpen(true)}>
        {t('app.addDevice.open')}
      </button>
    </>
  );
}
