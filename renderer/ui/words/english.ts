// The words' language when a caller gives none: English (the tests and old callers).
import { translator, type Translate } from '../../../contracts/i18n/translator.js';

export const english: Translate = translator('en');
