// Settings: each change goes to the engine at once, which says what it did with it.
import { ENCRYPTIONS } from '../../../contracts/values.js';
import { protocolWords } from '../../../contracts/words/states.js';
import { SPLIT_RULE_FIELDS } from '../../store/split-rules-slice.js';
import { useWords } from '../i18n/use-words.js';
import { BrowserSessions } from './browser-sessions.js';
import { ChangeFeedback } from './change-feedback.js';
import { ChoiceSetting } from './choice-setting.js';
import { DnsSetting } from './dns-setting.js';
import { HomeCountrySetting, LanguageSetting } from './language-settings.js';
import { OtherFieldErrors } from './other-field-errors.js';
import { SplitRules } from './split-rules.js';
import { StreamPlatform } from './stream-platform.js';
import { ToggleSetting } from './toggle-setting.js';

/** The ciphers, by their names (the same in every language). */
const [AES, CHACHA] = ENCRYPTIONS;

const SHOWN = [
  'kill_switch',
  'lockdown',
  'allow_lan',
  'dns',
  'split',
  'home_country',
  'obfuscation',
  'mode',
  'protocol',
  'encryption',
  'api_access',
  'language',
  // The split rules' form says its own.
  ...SPLIT_RULE_FIELDS,
];

export function SettingsScreen() {
  const { t } = useWords();
  return (
    <>
      <ChangeFeedback />
      <OtherFieldErrors shown={SHOWN} />
      <div className="settings">
        <section aria-labelledby="settings-protection" className="card">
          <h2 className="card__title" id="settings-protection">
            {t('app.settings.protection')}
          </h2>
          <ToggleSetting
            name="kill_switch"
            label={t('app.settings.killSwitch')}
            hint={t('app.settings.killSwitchHint')}
          />
          <ToggleSetting
            name="lockdown"
            label={t('app.settings.lockdown')}
            hint={t('app.settings.lockdownHint')}
          />
          <ToggleSetting
            name="allow_lan"
            label={t('app.settings.allowLan')}
            hint={t('app.settings.allowLanHint')}
          />
          <DnsSetting />
        </section>
        <section aria-labelledby="settings-routing" className="card">
          <h2 className="card__title" id="settings-routing">
            {t('app.settings.routing')}
          </h2>
          <ChoiceSetting
            name="split"
            legend={t('app.settings.split')}
            choices={[
              {
                value: 'auto',
                label: t('app.settings.splitAuto'),
                hint: t('app.settings.splitAutoHint'),
              },
              { value: 'off', label: t('app.settings.splitOff') },
            ]}
          />
          <HomeCountrySetting />
          <ChoiceSetting
            name="mode"
            legend={t('app.settings.mode')}
            choices={[
              {
                value: 'secure',
                label: t('app.settings.secure'),
                hint: t('app.settings.secureHint'),
              },
              {
                value: 'stream',
                label: t('app.settings.streaming'),
                hint: t('app.settings.streamingHint'),
              },
            ]}
          />
          <StreamPlatform />
        </section>
        <SplitRules />
        <section aria-labelledby="settings-tunnel" className="card">
          <h2 className="card__title" id="settings-tunnel">
            {t('app.settings.tunnel')}
          </h2>
          <ChoiceSetting
            name="protocol"
            legend={t('app.settings.protocol')}
            choices={[
              { value: 'wireguard', label: protocolWords('wireguard', t) },
              {
                value: 'ferry',
                label: protocolWords('ferry', t),
                hint: t('app.settings.ferryHint'),
              },
            ]}
          />
          <ChoiceSetting
            name="encryption"
            legend={t('app.settings.encryption')}
            choices={[
              { value: CHACHA, label: CHACHA },
              { value: AES, label: AES, hint: t('app.settings.aesHint') },
            ]}
          />
          <ChoiceSetting
            name="obfuscation"
            legend={t('app.settings.obfuscation')}
            choices={[
              {
                value: 'auto',
                label: t('app.settings.automatic'),
                hint: t('app.settings.obfuscationAutoHint'),
              },
              {
                value: 'tls',
                label: 'TLS',
                hint: t('app.settings.tlsHint'),
              },
              { value: 'tcp', label: 'TCP', aliases: ['on'] },
              { value: 'off', label: t('app.settings.udpOnly') },
            ]}
          />
          <ChoiceSetting
            name="api_access"
            legend={t('app.settings.apiAccess')}
            choices={[
              {
                value: 'auto',
                label: t('app.settings.automatic'),
                hint: t('app.settings.apiAutoHint'),
              },
              { value: 'direct', label: t('app.settings.direct') },
              {
                value: 'relays',
                label: t('app.settings.relays'),
                hint: t('app.settings.relaysHint'),
              },
            ]}
          />
        </section>
        <section aria-labelledby="settings-language" className="card">
          <h2 className="card__title" id="settings-language">
            {t('app.settings.language')}
          </h2>
          <LanguageSetting />
        </section>
        <BrowserSessions />
      </div>
    </>
  );
}
