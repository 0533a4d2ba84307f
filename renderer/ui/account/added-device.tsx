// A phone or tablet just added: its config as a QR code to scan with the WireGuard app, as text
// and as a file. The config holds the device's private key, which Ferry keeps nowhere: all of it
// is gone once the person presses Done.
import { useEffect, useId, useRef } from 'react';
import type { LocalAddDeviceResponse } from '../../../contracts/local-api.js';
import { useActions, useEngine } from '../store-context.js';
import { configFileName, qrAltText } from '../words/added-device.js';
import { regionName } from '../words/region-options.js';
import { useFileUrl, useQrCode } from './config-files.js';

export function AddedDevice(props: { added: LocalAddDeviceResponse }) {
  const id = useId();
  const { device, config, region } = props.added;
  const regions = useEngine((s) => s.regions);
  const { finishAddDevice } = useActions();
  const qr = useQrCode(config);
  const fileUrl = useFileUrl(config);
  const fileName = configFileName(device.name);
  const title = useRef<HTMLHeadingElement>(null);
  // Where the keyboard was (the Add button) is gone: the focus goes to what replaced it.
  useEffect(() => title.current?.focus(), []);

  return (
    <div className="added-device" role="group" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} ref={title} tabIndex={-1} className="added-device__title">
        Scan {device.name} with the WireGuard app
      </h3>
      <p>
        {device.name} is added to your account; it connects to{' '}
        {regionName(regions, region) ?? region}.
      </p>
      <div className="added-device__scan">
        {qr.state === 'made' ? (
          <img className="qr" src={qr.src} alt={qrAltText(device.name)} />
        ) : (
          <p role="status" className="qr qr--placeholder">
            {qr.state === 'making'
              ? 'Making the QR code…'
              : 'The QR code could not be made: save the configuration as a file instead.'}
          </p>
        )}
        <ol className="added-device__steps">
          <li>Install the official WireGuard app on the {device.kind}.</li>
          <li>
            In the WireGuard app: <strong>+</strong> → <strong>Scan from QR code</strong>.
          </li>
          <li>Point the {device.kind}’s camera at this code, then name the tunnel.</li>
        </ol>
      </div>
      <p className="added-device__secret">
        The code holds the {device.kind}’s private key: anyone who scans it can use your account.
        Ferry keeps no copy. After Done it is gone (add the {device.kind} again if you need it).
      </p>
      <details className="added-device__config">
        <summary>Show configuration</summary>
        <p id={`${id}-config-note`} className="hint">
          The configuration contains the private key of {device.name}: keep it to yourself.
        </p>
        <pre
          className="config-text"
          tabIndex={0}
          aria-label={`WireGuard configuration for ${device.name}, private key included`}
          aria-describedby={`${id}-config-note`}
        >
          {config}
        </pre>
      </details>
      <div className="added-device__actions">
        {fileUrl ? (
          <a className="button" href={fileUrl} download={fileName}>
            Save as file
          </a>
        ) : null}
        <button type="button" className="button button--primary" onClick={finishAddDevice}>
          Done
        </button>
      </div>
      {fileUrl ? (
        <p className="hint">
          The file, {fileName}, holds the private key too. Import it in the WireGuard app with{' '}
          <strong>+</strong> → <strong>Import from file</strong>, then delete it.
        </p>
      ) : null}
    </div>
  );
}
