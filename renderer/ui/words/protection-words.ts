// What protects the connection right now, in words (the engine's ProtectionStatus).
import { countryName } from '../../../contracts/i18n/places.js';
import type { Language } from '../../../contracts/i18n/languages.js';
import type { Translate } from '../../../contracts/i18n/translator.js';
import type { ProtectionStatus } from '../../../contracts/local-api.js';
import { english } from './english.js';

export function killSwitchWords(p: ProtectionStatus, t: Translate = english): string {
  switch (p.kill_switch) {
    case 'active':
      return t(p.lockdown ? 'app.protection.activeLockdown' : 'app.protection.active');
    case 'armed':
      return t(p.lockdown ? 'app.protection.armedLockdown' : 'app.protection.armed');
    default:
      return t('app.protection.off');
  }
}

export function dnsWords(p: ProtectionStatus, t: Translate = english): string {
  return p.dns.length > 0
    ? t('app.protection.dnsTunnel', { servers: p.dns.join(t('app.comma')) })
    : t('app.protection.dnsOwn');
}

/**
 * `live`: a tunnel is up or being made; without one, nothing is split or tunneled. The home
 * country by its name in `language` (its code without one).
 */
export function splitWords(
  p: ProtectionStatus,
  live: boolean,
  t: Translate = english,
  language?: Language,
): string {
  if (!live && p.split !== 'by-country') return t('app.protection.splitNotLive');
  switch (p.split) {
    case 'by-country':
      return p.home_country
        ? t('app.protection.splitByCountryHome', {
            country: language ? countryName(p.home_country, language) : p.home_country,
          })
        : t('app.protection.splitByCountry');
    case 'unavailable':
      return t('app.protection.splitUnavailable');
    default:
      return t('app.protection.splitOff');
  }
}
