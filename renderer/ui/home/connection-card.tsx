// The connection at a glance: the state, the map of where the person is and where they exit,
// the exit named by city and country with its flag, the big button, the exit address and why
// this server; the server's id and address only behind "Details".
import { countryName } from '../../../contracts/i18n/places.js';
import type { Language } from '../../../contracts/i18n/languages.js';
import type { Translate } from '../../../contracts/i18n/translator.js';
import type { LocalStatus } from '../../../contracts/local-api.js';
import { engineStateWords, protocolWords } from '../../../contracts/words/states.js';
import { transportNames, transportReasonText } from '../../../contracts/words/transports.js';
import { connectFailureWords } from '../../../contracts/words/errors.js';
import { sentence } from '../../store/error-words.js';
import { useWords } from '../i18n/use-words.js';
import { WorldMap } from '../map/world-map.js';
import { PlaceName } from '../places/flag.js';
import { placeOfRegion } from '../places/place-words.js';
import { useEngine } from '../store-context.js';
import { ConnectButton, ErrorExitButton } from './connect-button.js';
import { RegionPicker } from './region-picker.js';
import { useHomePlaces, type HomePlaces } from './use-places.js';

/** "WireGuard · ChaCha20-Poly1305 · UDP", from what is known of the tunnel. */
export function tunnelFacts(status: LocalStatus, t: Translate): string {
  return [
    status.protocol ? protocolWords(status.protocol, t) : null,
    status.cipher,
    status.transport ? transportNames(t)[status.transport] : null,
    status.mode === 'stream'
      ? status.platform
        ? t('home.connection.streamFor', { platform: status.platform })
        : t('home.connection.stream')
      : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The map's name in words: where the person is, and where they exit. */
export function mapLabel(places: HomePlaces, t: Translate, language: Language): string {
  const home = places.home ? countryName(places.home, language) : null;
  const exit = places.exit?.label ?? null;
  const entry = places.entry?.label ?? null;
  if (exit && entry && home) return t('home.map.youEntryExit', { home, entry, exit });
  if (exit && home) return t('home.map.youExit', { home, exit });
  if (exit) return t('home.map.unknownExit', { exit });
  if (home) return t('home.map.you', { home });
  return t('home.map.unknown');
}

export function ConnectionCard() {
  const { t, language } = useWords();
  const status = useEngine((s) => s.status);
  const regions = useEngine((s) => s.regions);
  const lastConnect = useEngine((s) => s.lastConnect);
  const shownError = useEngine((s) => s.error);
  const places = useHomePlaces();
  if (!status) return null;
  const live = status.status !== 'disconnected';
  const facts = live ? tunnelFacts(status, t) : '';
  // The banner already says it when the failure was our own call's.
  const failure =
    status.status === 'error' && status.error && shownError?.code !== status.error.code
      ? connectFailureWords(status.error.code, t)
      : null;
  const reason = status.transport_reason;
  const entryPlace = status.node?.entry
    ? placeOfRegion(regions?.regions, status.node.entry.region, language)
    : null;
  return (
    <section
      aria-label={t('home.connection.label')}
      className={`card connection connection--${status.status}`}
    >
      <p role="status" className="connection__state">
        {engineStateWords(t)[status.status]}
      </p>
      <WorldMap
        home={places.home}
        exit={places.exit?.code ?? null}
        entry={places.entry?.code ?? null}
        connected={places.connected}
        label={mapLabel(places, t, language)}
      />
      {places.exit ? (
        <p className="connection__where">
          <span className="connection__where-label">{t('home.connection.exit')}</span>{' '}
          <PlaceName code={places.exit.code} label={places.exit.label} />
          {places.entry ? (
            <span className="connection__entry">
              {' · '}
              {t('home.connection.entry')}{' '}
              <PlaceName code={places.entry.code} label={places.entry.label} />
            </span>
          ) : null}
        </p>
      ) : null}
      {facts ? <p className="muted">{facts}</p> : null}
      {live && reason ? (
        <p
          role="note"
          className="connection__transport"
          aria-label={t('home.connection.transport')}
        >
          {language === 'en' || !status.transport
            ? sentence(reason.message)
            : transportReasonText(status.transport, reason.code, reason.blocked, t)}
        </p>
      ) : null}
      {status.api_access.reason ? (
        <p
          role="note"
          className="connection__service muted"
          aria-label={t('home.connection.service')}
        >
          {sentence(status.api_access.reason)}
        </p>
      ) : null}
      {failure ? <p className="connection__failure">{failure}</p> : null}
      {status.status === 'error' && status.protection.kill_switch === 'active' ? (
        <p>{t('home.connection.killSwitchHolds')}</p>
      ) : null}
      <RegionPicker />
      <div className="connection__actions">
        <ConnectButton />
        <ErrorExitButton />
      </div>
      {lastConnect?.exit.after ? (
        <p>
          {t('home.connection.address')} <strong dir="ltr">{lastConnect.exit.after}</strong>
          {lastConnect.exit.before ? (
            <span className="muted">
              {' '}
              {t('home.connection.addressWas', { address: lastConnect.exit.before })}
            </span>
          ) : null}
        </p>
      ) : null}
      {lastConnect && lastConnect.routing.reasons.length > 0 ? (
        <details className="why">
          <summary>{t('home.connection.why')}</summary>
          <ul>
            {lastConnect.routing.reasons.map((r) => (
              <li key={r}>{sentence(r)}</li>
            ))}
          </ul>
        </details>
      ) : null}
      {live && status.node ? (
        <details className="connection__details">
          <summary>{t('home.connection.details')}</summary>
          <dl className="facts">
            <div>
              <dt>{t('home.connection.server')}</dt>
              <dd>
                <span dir="ltr">{status.node.id}</span>{' '}
                <span className="muted" dir="ltr">
                  ({status.node.endpoint})
                </span>
              </dd>
            </div>
            {status.node.entry ? (
              <div>
                <dt>{t('home.connection.entryServer')}</dt>
                <dd>
                  <span dir="ltr">{status.node.entry.id}</span>
                  {entryPlace ? ` · ${entryPlace.label}` : null}
                </dd>
              </div>
            ) : null}
            {status.interface ? (
              <div>
                <dt>{t('home.connection.interface')}</dt>
                <dd dir="ltr">{status.interface}</dd>
              </div>
            ) : null}
          </dl>
        </details>
      ) : null}
    </section>
  );
}
