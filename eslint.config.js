// Guard rails (issue 9): typescript-eslint's recommended rules over the TypeScript sources.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'src/node/admin/static/**', 'web/src/api/openapi.gen.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      // `_name` marks a parameter an interface requires but this implementation does not read.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // The console (issue 21 §2): hooks called in a stable order and effects that name what they read.
    // The classic two rules only; the React Compiler's stricter ones would flag patterns the console uses on purpose.
    files: ['web/**/*.ts', 'web/**/*.tsx', 'test/web/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // Test doubles and replies parsed from JSON are loosely typed on purpose.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', module: 'writable', require: 'readonly', URL: 'readonly' },
    },
  },
);
