// Every word a person reads, in the person's language: the languages, which one the system or
// the browser asks for, and the translator over the catalogs (catalogs/<language>.json).
export * from './languages.js';
export * from './translator.js';
export * from './places.js';
