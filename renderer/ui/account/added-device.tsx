// A phone or tablet just added: its config as a QR code to scan with the WireGuard app, as text
// and as a file. The config holds the device's private key, which Ferry keeps nowhere: all of it
// is gone once the person presses Done.
import { useEffect, useId, useRef } from 'react';
import type { LocalAddDeviceResponse } from '../../../contracts/local-api.js';
import { useWords } from '../i18n/use-words.js';
import { richText } from '../forms/rich-text.js';
import { useActions, useEngine } from '../store-context.js';
import { configFileName, qrAltText } from '../words/added-device.js';
import { regionName } from '../words/region-options.js';
import { useFileUrl, useQrCode } from './config-files.js';

export function AddedDevice(props: { added: LocalAddDeviceResponse }) {
  const { t } = useWords();
  const id = useId();
  const { device, config, region } = props.added;
  const regions = useEngine((s) => s.regions);
  const { finishAddDevice } = useActions();
  const qr = useQrCode(config);
  const fileUrl = useFileUrl(config);
  const fileName = configFileName(device.name);
  const kind = t(`app.account.kinds.${device.kind}`);
  const name = device.name;
  const title = useRef<HTMLHeadingElement>(null);
  // Where the keyboard was (the Add button) is gone: the focus goes to what replaced it.
  useEffect(() => title.current?.focus(), []);

  return (
    <div className="added-device" role="group" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} ref={title} tabIndex={-1} className="added-device__title">
        {t('app.addDevice.scanTitle', { name })}
      </h3>
      <p>{t('app.addDevice.added', { name, region: regionName(regions, region) ?? region })}</p>
      <div className="added-device__scan">
        {qr.state === 'made' ? (
          <img className="qr" src={qr.src} alt={qrAltText(name, t)} />
        ) : (
          <p role="status" className="qr qr--placeholder">
            {qr.state === 'making' ? t('app.addDevice.qrMaking') : t('app.addDevice.qrFailed')}
          </p>
        )}
        <ol className="added-device__steps">
          <li>{t('app.addDevice.step1', { device: kind })}</li>
          <li>{richText(t('app.addDevice.step2'))}</li>
          <li>{t('app.addDevice.step3', { device: kind })}</li>
        </ol>
      </div>
      <p className="added-device__secret">{t('app.addDevice.secret', { device: kind })}</p>
      <details className="added-device__config">
        <summary>{t('app.addDevice.showConfig')}</summary>
        <p id={`${id}-config-note`} className="hint">
          {t('app.addDevice.configNote', { name })}
        </p>
        <pre
          className="config-text"
          tabIndex={0}
          aria-label={t('app.addDevice.configLabel', { name })}
          dir="ltr"
          aria-describedby={`${id}-config-note`}
        >
          {config}
        </pre>
      </details>
      <div className="added-device__actions">
        {fileUrl ? (
          <a className="button" href={fileUrl} download={fileName}>
            {t('app.addDevice.saveFile')}
          </a>
        ) : null}
        <button type="button" className="button button--primary" onClick={finishAddDevice}>
          {t('app.addDevice.done')}
        </button>
      </div>
      {fileUrl ? (
        <p className="hint">{richText(t('app.addDevice.fileHint', { file: fileName }))}</p>
      ) : null}
    </div>
  );
}
