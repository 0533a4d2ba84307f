// The account's devices with their live state (connected, its latency and region), each
// revocable (this one too: that signs it out).
import { useActions, useEngine } from '../store-context.js';
import { deviceStateWords } from '../words/device-words.js';
import { ConfirmButton } from './confirm-button.js';

export function DeviceList() {
  const devices = useEngine((s) => s.devices);
  const regions = useEngine((s) => s.regions);
  const revoking = useEngine((s) => s.busy.revoke === true);
  const { revokeDevice } = useActions();
  if (!devices) return <p className="muted">Loading the devices…</p>;
  const regionName = (id: string) => regions?.regions.find((r) => r.id === id)?.name;
  return (
    <ul className="devices" aria-label="Devices">
      {devices.map((d) => (
        <li key={d.id} className="device">
          <div>
            <strong>{d.name}</strong> <span className="muted">({d.kind})</span>
            {d.current ? <span className="tag">This device</span> : null}
            <div className="device__state">{deviceStateWords(d, regionName)}</div>
          </div>
          <ConfirmButton
            label={`Revoke ${d.name}`}
            text="Revoke"
            question={
              d.current
                ? `Revoke ${d.name}? This device will be signed out and disconnected.`
                : `Revoke ${d.name}? It will be signed out and need the account number to sign in again.`
            }
            confirmText="Yes, revoke"
            busy={revoking}
            onConfirm={() => void revokeDevice(d.id)}
          />
        </li>
      ))}
    </ul>
  );
}
