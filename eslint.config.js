// ESLint: typescript-eslint's recommended rules plus the import boundaries of design.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import i18next from 'eslint-plugin-i18next';

const OURS = [
  'contracts',
  'platform',
  'server',
  'relay',
  'engine',
  'native',
  'cli',
  'electron',
  'renderer',
];

/** Forbids importing the listed top-level folders of ours (relative paths at any depth). */
function mayNotImport(folders, extra = []) {
  return {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...folders.map((f) => ({
            group: [`**/${f}`, `**/${f}/**`],
            message: `design.md's dependency direction forbids importing ${f}/ here.`,
          })),
          ...extra,
        ],
      },
    ],
  };
}

const except = (...allowed) => OURS.filter((f) => !allowed.includes(f));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'native/build/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  // contracts: types and schemas only, no I/O and nothing of ours.
  {
    files: ['contracts/**/*.ts'],
    rules: mayNotImport(except('contracts'), [
      { group: ['node:*'], message: 'contracts/ does no I/O: no Node built-ins.' },
    ]),
  },
  // platform: the I/O several rooms share (the route table's HTTP adapter, OS adapters);
  // it builds on contracts only.
  { files: ['platform/**/*.ts'], rules: mayNotImport(except('contracts', 'platform')) },
  { files: ['server/**/*.ts'], rules: mayNotImport(except('contracts', 'platform', 'server')) },
  // Inside the control plane, store implements the ports that domain declares: no arrow from
  // store to domain, and domain knows no store (app.ts wires the one to the other).
  {
    files: ['server/store/**/*.ts'],
    rules: mayNotImport(except('contracts', 'platform', 'server'), [
      {
        group: ['**/domain', '**/domain/**'],
        message: 'server/store implements the ports of server/domain/ports without importing them.',
      },
    ]),
  },
  {
    files: ['server/domain/**/*.ts'],
    rules: mayNotImport(except('contracts', 'platform', 'server'), [
      {
        group: ['**/store', '**/store/**', '**/http', '**/http/**'],
        message: 'server/domain declares the ports it needs (domain/ports/); app.ts wires a store.',
      },
    ]),
  },
  {
    files: ['relay/**/*.ts'],
    rules: mayNotImport(except('contracts', 'platform', 'relay', 'native')),
  },
  { files: ['renderer/**/*.{ts,tsx}'], rules: mayNotImport(except('contracts', 'renderer')) },
  {
    files: ['engine/**/*.ts'],
    rules: mayNotImport(except('contracts', 'platform', 'engine', 'native')),
  },
  // The engine's tests run against the real control plane in process, through its test kit.
  {
    files: ['engine/**/*.test.ts'],
    rules: mayNotImport(except('contracts', 'platform', 'engine', 'native', 'server'), [
      {
        regex: '^(\\.\\./)+server/(?!testing/)',
        message: 'engine tests use the control plane through server/testing only.',
      },
    ]),
  },
  // The faces are thin hosts of the engine.
  { files: ['cli/**/*.{ts,tsx}'], rules: mayNotImport(except('contracts', 'engine', 'cli')) },
  // The terminal UI draws text through its own Text, which screens what the control plane wrote.
  {
    files: ['cli/tui/**/*.tsx'],
    ignores: ['cli/tui/text.tsx'],
    rules: mayNotImport(except('contracts', 'engine', 'cli'), [
      {
        group: ['ink'],
        importNames: ['Text'],
        message: 'draw text with cli/tui/text.tsx’s Text: it removes terminal controls.',
      },
    ]),
  },
  { files: ['electron/**/*.ts'], rules: mayNotImport(except('contracts', 'engine', 'electron')) },
  { files: ['native/**/*.ts'], rules: mayNotImport(except('contracts', 'native')) },
  // Every word a person reads in a face comes from the catalogs (contracts/i18n/catalogs): a
  // literal that reads as words (a capitalised word, or words with a space between) is refused;
  // single lower-case tokens (codes, class names, keys) and strings without letters are not.
  {
    files: ['renderer/**/*.{ts,tsx}', 'cli/**/*.{ts,tsx}', 'electron/**/*.ts'],
    ignores: ['**/*.test.{ts,tsx}', '**/*.fake.{ts,tsx}', 'cli/testing/**', 'renderer/**/*.d.ts'],
    plugins: { i18next },
    rules: {
      'i18next/no-literal-string': [
        'error',
        {
          mode: 'all',
          'should-validate-template': true,
          words: { exclude: [/^(?!\p{Lu}\p{Ll})\S*$/u, /^[^\p{L}]*$/u] },
          callees: {
            exclude: [
              'i18n(ext)?',
              't',
              'require',
              'addEventListener',
              'removeEventListener',
              'getElementById',
              'querySelector(All)?',
              'includes',
              'indexOf',
              'endsWith',
              'startsWith',
              // A programming error, never shown as the face's words.
              'Error',
              'TypeError',
              'RangeError',
            ],
          },
        },
      ],
    },
  },
  {
    files: ['**/*.js', 'bin/*'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly' } },
  },
);
