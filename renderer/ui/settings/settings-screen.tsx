// Settings: each change goes to the engine at once, which says what it did with it.
import { PROTOCOL_WORDS } from '../../../contracts/words/states.js';
import { SPLIT_RULE_FIELDS } from '../../store/split-rules-slice.js';
import { BrowserSessions } from './browser-sessions.js';
import { ChangeFeedback } from './change-feedback.js';
import { ChoiceSetting } from './choice-setting.js';
import { DnsSetting } from './dns-setting.js';
import { OtherFieldErrors } from './other-field-errors.js';
import { SplitRules } from './split-rules.js';
import { StreamPlatform } from './stream-platform.js';
import { ToggleSetting } from './toggle-setting.js';

const SHOWN = [
  'kill_switch',
  'lockdown',
  'allow_lan',
  'dns',
  'split',
  'obfuscation',
  'mode',
  'protocol',
  'encryption',
  'api_access',
  // The split rules' form says its own.
  ...SPLIT_RULE_FIELDS,
];

export function SettingsScreen() {
  return (
    <>
      <ChangeFeedback />
      <OtherFieldErrors shown={SHOWN} />
      <div className="settings">
        <section aria-labelledby="settings-protection" className="card">
          <h2 className="card__title" id="settings-protection">
            Protection
          </h2>
          <ToggleSetting
            name="kill_switch"
            label="Kill switch"
            hint="Blocks all traffic outside the tunnel while connecting, connected, reconnecting and after an error."
          />
          <ToggleSetting
            name="lockdown"
            label="Lockdown mode"
            hint="The kill switch also blocks traffic while disconnected."
          />
          <ToggleSetting
            name="allow_lan"
            label="Allow local network"
            hint="Printers and other devices on your network stay reachable while the kill switch holds."
          />
          <DnsSetting />
        </section>
        <section aria-labelledby="settings-routing" className="card">
          <h2 className="card__title" id="settings-routing">
            Routing
          </h2>
          <ChoiceSetting
            name="split"
            legend="Split tunneling"
            choices={[
              {
                value: 'auto',
                label: 'Only cross-border traffic',
                hint: 'Traffic to your home country leaves directly.',
              },
              { value: 'off', label: 'All traffic through the tunnel' },
            ]}
          />
          <ChoiceSetting
            name="mode"
            legend="Mode"
            choices={[
              {
                value: 'secure',
                label: 'Secure',
                hint: 'For office work: the best server for you.',
              },
              {
                value: 'stream',
                label: 'Streaming',
                hint: 'A server verified for your streaming platform.',
              },
            ]}
          />
          <StreamPlatform />
        </section>
        <SplitRules />
        <section aria-labelledby="settings-tunnel" className="card">
          <h2 className="card__title" id="settings-tunnel">
            Tunnel
          </h2>
          <ChoiceSetting
            name="protocol"
            legend="Protocol"
            choices={[
              { value: 'wireguard', label: PROTOCOL_WORDS.wireguard },
              {
                value: 'ferry',
                label: PROTOCOL_WORDS.ferry,
                hint: 'Ferry’s own protocol, harder to detect.',
              },
            ]}
          />
          <ChoiceSetting
            name="encryption"
            legend="Encryption"
            choices={[
              { value: 'ChaCha20-Poly1305', label: 'ChaCha20-Poly1305' },
              {
                value: 'AES-256-GCM',
                label: 'AES-256-GCM',
                hint: 'Ferry protocol only; WireGuard always uses ChaCha20-Poly1305.',
              },
            ]}
          />
          <ChoiceSetting
            name="obfuscation"
            legend="Obfuscation"
            choices={[
              {
                value: 'auto',
                label: 'Automatic',
                hint: 'Finds the transport that gets through on this network, and remembers it.',
              },
              {
                value: 'tls',
                label: 'TLS',
                hint: 'Looks like a browser visiting a web site.',
              },
              { value: 'tcp', label: 'TCP', aliases: ['on'] },
              { value: 'off', label: 'UDP only' },
            ]}
          />
          <ChoiceSetting
            name="api_access"
            legend="Reaching the service"
            choices={[
              {
                value: 'auto',
                label: 'Automatic',
                hint: 'Directly, or through a Ferry server when the service is blocked on this network.',
              },
              { value: 'direct', label: 'Directly' },
              {
                value: 'relays',
                label: 'Through a Ferry server',
                hint: 'Hidden like the tunnel; the server sees only encrypted traffic.',
              },
            ]}
          />
        </section>
        <BrowserSessions />
      </div>
    </>
  );
}
