// ESLint flat config: JavaScript's recommended rules, typescript-eslint's type-aware recommended
// rules on TypeScript, and eslint-config-prettier last (formatting is Prettier's job: `npm run lint`
// runs both).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '.bench/**',
      'coverage/**',
      '**/node_modules/**',
      'collector/**',
      // Its own npm workspace, with its own tooling.
      'test/frameworks/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      // The two TypeScript projects named outright: with the project service, ESLint took 43 s to
      // lint this tree without a cache, against 23 s this way (same rules, same findings).
      parserOptions: { project: ['./tsconfig.json', './bench/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `_`-prefixed parameters are the way to name one an interface requires but a body does not use.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // `async` is how an implementation of a Promise-returning interface (an AI SDK model, a tool's
      // execute, a callback awaited by its caller) says so; a body without `await` is no defect there.
      '@typescript-eslint/require-await': 'off',
      // Every import of a type says so, and mixes with values in one statement.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // A module's exports are listed where they are made: a reader sees them without chasing files.
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'Name what a module re-exports instead of `export *`.' },
      ],
    },
  },
  {
    // The library speaks through `diag` and its outputs; only the command line prints.
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
