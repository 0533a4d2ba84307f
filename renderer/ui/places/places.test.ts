// Places by city and country in the person's language, the region search (city, country in the
// language or English, id; case and accents aside) and the facts' numbers in each language.
import { describe, expect, it } from 'vitest';
import { translator } from '../../../contracts/i18n/translator.js';
import { cityOf, placeOfRegion, placeWords } from './place-words.js';
import { latencyMsOf, latencyText, loadText } from './region-facts.js';
import { foldText, regionMatches, searchRegions } from './region-search.js';

const REGIONS = [
  { id: 'global', name: 'Global', country: null },
  { id: 'asia-east', name: 'Asia East (Tokyo)', country: 'JP' },
  { id: 'asia-southeast', name: 'Asia Southeast (Singapore)', country: 'SG' },
  { id: 'eu-west', name: 'Europe West (Amsterdam)', country: 'NL' },
  { id: 'us-west', name: 'US West (Los Angeles)', country: 'US' },
  { id: 'de-fra', name: 'Frankfurt', country: 'de' },
  { id: 'sg', name: 'Singapore', country: 'SG' },
];

describe('place words', () => {
  it('names a region by its city and country, in the language', () => {
    expect(cityOf('Asia East (Tokyo)')).toBe('Tokyo');
    expect(cityOf('Frankfurt')).toBe('Frankfurt');
    expect(placeWords(REGIONS[1]!, 'en')).toEqual({
      city: 'Tokyo',
      country: 'Japan',
      code: 'JP',
      label: 'Tokyo, Japan',
    });
    expect(placeWords(REGIONS[1]!, 'zh-CN').label).toBe('日本 Tokyo');
    expect(placeWords(REGIONS[1]!, 'fa').label).toBe('Tokyo، ژاپن');
    expect(placeWords(REGIONS[1]!, 'ru').country).toBe('Япония');
    expect(placeWords(REGIONS[1]!, 'fa').country).toBe('ژاپن');
    expect(placeWords(REGIONS[5]!, 'en').code).toBe('DE');
  });

  it('a city-state once; a region of no country by its name; an unknown id as it is', () => {
    expect(placeWords(REGIONS[6]!, 'en').label).toBe('Singapore');
    expect(placeWords(REGIONS[0]!, 'en')).toMatchObject({ label: 'Global', code: null });
    expect(placeOfRegion(REGIONS, 'nowhere', 'en')).toMatchObject({ label: 'nowhere' });
    expect(placeOfRegion(REGIONS, null, 'en')).toBeNull();
  });
});

describe('region search', () => {
  const ids = (query: string, language: Parameters<typeof searchRegions>[2] = 'en') =>
    searchRegions(REGIONS, query, language).map((r) => r.id);

  it('keeps every region for an empty search', () => {
    expect(ids('')).toEqual(REGIONS.map((r) => r.id));
    expect(ids('   ')).toHaveLength(REGIONS.length);
  });

  it('finds by city, by country, by id; letter case and accents aside', () => {
    expect(ids('tok')).toEqual(['asia-east']);
    expect(ids('japan')).toEqual(['asia-east']);
    expect(ids('NETHERL')).toEqual(['eu-west']);
    expect(ids('us-west')).toEqual(['us-west']);
    expect(ids('los ang')).toEqual(['us-west']);
    expect(ids('sing')).toEqual(['asia-southeast', 'sg']);
    expect(ids('Frânkfurt')).toEqual(['de-fra']);
    expect(ids('germany')).toEqual(['de-fra']);
    expect(ids('xyz')).toEqual([]);
  });

  it('finds by the country’s name in the language, and in English too', () => {
    expect(ids('日本', 'zh-CN')).toEqual(['asia-east']);
    expect(ids('日', 'zh-TW')).toEqual(['asia-east']);
    expect(ids('япон', 'ru')).toEqual(['asia-east']);
    expect(ids('ژاپن', 'fa')).toEqual(['asia-east']);
    expect(ids('japan', 'fa')).toEqual(['asia-east']);
    expect(regionMatches(REGIONS[3]!, 'нидерл', 'ru')).toBe(true);
  });

  it('folds text for matching', () => {
    expect(foldText('  São   Paulo ')).toBe('sao paulo');
  });
});

describe('region facts', () => {
  it('latency and load in the language’s numbers', () => {
    expect(latencyMsOf('12.5ms')).toBe(12.5);
    expect(latencyMsOf(null)).toBeNull();
    expect(latencyText('12ms', translator('en'), 'en')).toBe('12 ms');
    expect(latencyText('12ms', translator('fa'), 'fa')).toMatch(/۱۲/);
    expect(latencyText(null, translator('en'), 'en')).toBeNull();
    expect(loadText(0.4, 'en')).toBe('40%');
    expect(loadText(0.4, 'fa')).toMatch(/۴۰/);
    expect(loadText(1.7, 'en')).toBe('100%');
  });
});
