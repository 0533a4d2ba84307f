// Countries as ISO 3166-1 alpha-2 codes and as numbers (AA = 0 ... ZZ = 675): the GeoIP tables
// label their ranges with the numbers, not strings.

/** The character code of `A`: a code's letters are counted from it. */
export const CAPITAL_A = 65;

export function countryIndex(code: string): number {
  return (code.charCodeAt(0) - CAPITAL_A) * 26 + (code.charCodeAt(1) - CAPITAL_A);
}

export function countryCode(index: number): string {
  return String.fromCharCode(CAPITAL_A + Math.floor(index / 26), CAPITAL_A + (index % 26));
}

/** Two letters, in either case. */
export const COUNTRY = /^[A-Za-z]{2}$/;

/** The code in capitals; a RangeError when it is not one (the caller's bug). */
export function checkCountry(country: string): string {
  if (!COUNTRY.test(country))
    throw new RangeError(`not an ISO 3166-1 alpha-2 country code: ${JSON.stringify(country)}`);
  return country.toUpperCase();
}
