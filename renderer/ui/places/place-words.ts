// Places as a person names them (contracts/i18n/places.ts: the window and the tray say them
// alike).
export {
  cityOf,
  placeOfRegion,
  placeWords,
  type PlaceWords,
  type RegionLike,
} from '../../../contracts/i18n/places.js';
