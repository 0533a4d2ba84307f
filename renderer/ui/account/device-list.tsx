// The account's devices with their live state (connected, its latency and region), each
// revocable (this one too: that signs it out).
import { useWords } from '../i18n/use-words.js';
import { useActions, useEngine } from '../store-context.js';
import { deviceStateWords } from '../words/device-words.js';
import { ConfirmButton } from './confirm-button.js';

export function DeviceList() {
  const { t } = useWords();
  const devices = useEngine((s) => s.devices);
  const regions = useEngine((s) => s.regions);
  const revoking = useEngine((s) => s.busy.revoke === true);
  const { revokeDevice } = useActions();
  if (!devices) return <p className="muted">{t('app.account.devicesLoading')}</p>;
  const regionName = (id: string) => regions?.regions.find((r) => r.id === id)?.name;
  return (
    <ul className="devices" aria-label={t('app.account.devices')}>
      {devices.map((d) => (
        <li key={d.id} className="device">
          <div>
            <strong>{d.name}</strong>{' '}
            <span className="muted">({t(`app.account.kinds.${d.kind}`)})</span>
            {d.current ? <span className="tag">{t('app.account.thisDevice')}</span> : null}
            <div className="device__state">{deviceStateWords(d, regionName, t)}</div>
            <details className="device__details">
              <summary>{t('app.account.details')}</summary>
              <p className="muted">
                {t('app.account.deviceId')} <code dir="ltr">{d.id}</code>
              </p>
            </details>
          </div>
          <ConfirmButton
            label={t('app.account.revokeLabel', { name: d.name })}
            text={t('app.account.revoke')}
            question={t(d.current ? 'app.account.revokeThis' : 'app.account.revokeOther', {
              name: d.name,
            })}
            confirmText={t('app.account.revokeYes')}
            busy={revoking}
            onConfirm={() => void revokeDevice(d.id)}
          />
        </li>
      ))}
    </ul>
  );
}
