// Numbers a person reads: data amounts, account numbers in groups.

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'];

/** 3221225472 -> "3 GB" (binary multiples, one decimal below 10). */
export function bytesWords(n: number): string {
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = unit === 0 || value >= 10 ? Math.round(value) : Math.round(value * 10) / 10;
  return `${shown} ${UNITS[unit]}`;
}

/** "1234567812345678" -> "1234 5678 1234 5678". */
export function groupedAccountNumber(digits: string): string {
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ');
}
