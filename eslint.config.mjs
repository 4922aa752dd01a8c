// Lint: type-aware rules everywhere (a forgotten await on an activity, a timer or a query is a
// bug), and the layers of the README's layout table checked on every import:
// one `@typescript-eslint/no-restricted-imports` block per folder below. A file takes its options
// from the last block that matches it (flat config does not merge a rule's options), so each
// folder's block states its whole row. `workers/`, `cli/`, `orchestration/` and `test/` import
// anything; test/lint/layers.test.ts proves the rules bite.
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

/** Our top-level folders. */
const FOLDERS = ['api', 'activities', 'bench', 'cli', 'config', 'crypto', 'db', 'domain', 'net', 'orchestration', 'processor', 'scripts', 'sdk', 'services', 'test', 'views', 'web', 'workers', 'workflows'];
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** A relative specifier that climbs out to one of these top-level folders. */
const into = (names) => `^(\\.\\./)+(${names.map(escape).join('|')})(/|$)`;
const except = (...allowed) => FOLDERS.filter((name) => !allowed.includes(name));
const BUILTINS = `^(node:|(${builtinModules.map(escape).join('|')})(/|$))`;
/** A package (not a relative path, not a Node built-in) other than these. */
const packagesExcept = (allowed) => `^(?!\\.|node:|(${[...builtinModules, ...allowed].map(escape).join('|')})(/|$))`;

const layer = (files, patterns, ignores = []) => ({
  files,
  ignores,
  rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
});

const noBuiltins = (why) => ({ regex: BUILTINS, message: `No Node built-ins in ${why}.` });

// api/: not the worker side (workers/, activities/ at run time; their types are fine) nor the
// processor, which answers its own pages: the processor port's types only. api/app.ts builds the
// processors and mounts the sandbox's pages (the composition root; see its block).
const apiPatterns = (processorAtRunTime) => [
  { regex: into(['workers', 'cli', 'bench', 'scripts', 'test']), message: 'api/ does not import the worker side, the CLI, the bench or tests.' },
  { regex: into(['activities']), allowTypeImports: true, message: 'api/ imports activity types only (activities run on the worker side).' },
  ...(processorAtRunTime ? [] : [{ regex: into(['processor']), allowTypeImports: true, message: 'api/ and the processor do not import each other: the processor port\'s types only (shared pages code is in web/).' }]),
];

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'dist/**', 'test/fixtures/lint/**'] },
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

  // domain/: pure rules, imported by workflow code, so safe in the workflow sandbox: nothing of
  // ours, no Node built-ins, and only pure-JavaScript packages (ipaddr.js, validator, nodemailer's address parser).
  layer(['domain/**/*.ts'], [
    noBuiltins('domain/: workflow code imports it (Node-dependent code goes to crypto/, net/ or db/)'),
    { regex: packagesExcept(['ipaddr.js', 'validator', 'nodemailer/lib/addressparser']), message: 'domain/ imports only sandbox-safe pure-JavaScript packages (ipaddr.js, validator, nodemailer\'s address parser).' },
    { regex: into(except('domain')), message: 'domain/ imports nothing of ours.' },
  ], ['domain/webhook-signature.ts']),
  // The one exception: the webhook signature is HMAC (node:crypto) and is the merchants' package's
  // source (sdk/ builds dist/domain/webhook-signature.js); workflow code may not import it.
  layer(['domain/webhook-signature.ts'], [
    { regex: `^(?!\\.|node:crypto$)`, message: 'The webhook signature uses node:crypto only.' },
    { regex: into(except('domain')), message: 'domain/ imports nothing of ours.' },
  ]),

  // workflows/: deterministic code: @temporalio/workflow, pure domain/, activity types.
  layer(['workflows/**/*.ts'], [
    noBuiltins('workflow code: it is deterministic and runs in the sandbox'),
    { regex: packagesExcept(['@temporalio/workflow']), message: 'Workflow code imports only @temporalio/workflow of the packages (no I/O: call an activity).' },
    { regex: into(except('domain', 'activities')), message: 'Workflow code imports only domain/ and activity types of ours.' },
    { regex: into(['activities']), allowTypeImports: true, message: 'Workflow code imports activity types only (`import type`): it calls them through proxyActivities.' },
    { regex: into(['domain/webhook-signature']), message: 'domain/webhook-signature uses node:crypto: not in workflow code.' },
  ]),

  // db/: rows in, rows out. Domain rules and crypto/ (ids, key hashes); config's types.
  layer(['db/**/*.ts'], [
    { regex: into(except('db', 'domain', 'crypto', 'config')), message: 'db/ imports domain/ (and crypto/) only: rows in, rows out (public objects are views/).' },
    { regex: into(['config']), allowTypeImports: true, message: 'db/ imports config types only.' },
  ]),

  // views/: the public JSON objects (and the customers' emails) from rows: domain/ rules, web/'s
  // HTML escaping, and the row types of db/.
  layer(['views/**/*.ts'], [
    { regex: into(except('views', 'domain', 'db', 'web')), message: 'views/ render rows with domain/ rules (and web/ escaping) only.' },
    { regex: into(['db']), allowTypeImports: true, message: 'views/ import row types from db/ only (they query nothing).' },
  ]),

  // services/: one verb each, called by routes, pages, the CLI and activities; never the reverse.
  // The processor and the workers reach them as dependencies (types only).
  layer(['services/**/*.ts'], [
    { regex: into(['api', 'web', 'cli', 'workers', 'activities', 'bench', 'scripts', 'sdk', 'test']), message: 'services/ are called by api/, cli/ and activities/; they do not import them.' },
    { regex: into(['processor']), allowTypeImports: true, message: 'services/ get the processors as a dependency: the processor port\'s types only.' },
  ]),

  // activities/: side effects for workflows: domain, db, processor, config, crypto, net, and the
  // orchestration port's types. The factories never import activities/index.ts, which assembles
  // them (what they share is activities/deps.ts): no cycle.
  layer(['activities/**/*.ts'], [
    { regex: into(['api', 'web', 'cli', 'workers', 'workflows', 'bench', 'scripts', 'sdk', 'test']), message: 'activities/ import services, domain, db, processor, config, crypto and net only.' },
    { regex: into(['orchestration']), allowTypeImports: true, message: 'activities/ import the orchestration port\'s types only (they get the port in ActivityDeps).' },
    { regex: '^(\\.(/index)?|\\.\\./activities(/index)?)$', message: 'activities/index.ts assembles the factories: import ActivityDeps from ./deps, not the index (an import cycle).' },
  ], ['activities/index.ts']),
  layer(['activities/index.ts'], [
    { regex: into(['api', 'web', 'cli', 'workers', 'workflows', 'bench', 'scripts', 'sdk', 'test']), message: 'activities/ import services, domain, db, processor, config, crypto and net only.' },
    { regex: into(['orchestration']), allowTypeImports: true, message: 'activities/ import the orchestration port\'s types only (they get the port in ActivityDeps).' },
  ]),

  layer(['api/**/*.ts'], apiPatterns(false), ['api/app.ts']),
  layer(['api/app.ts'], apiPatterns(true)),

  // processor/: a card processor and, for the sandbox, its own pages (shared pages code in web/).
  layer(['processor/**/*.ts'], [
    { regex: into(['api', 'activities', 'workflows', 'workers', 'cli', 'orchestration', 'bench', 'scripts', 'test']), message: 'The processor imports domain/, db/, config/ and web/ only: not api/ (they do not import each other).' },
  ]),

  // web/ (the HTML shell and forms), crypto/ (ids, keys), net/ (outbound webhook HTTP): leaves
  // shared by the API, the processor, db/ and activities/; they import domain/ only.
  layer(['web/**/*.ts'], [{ regex: into(except('web', 'domain')), message: 'web/ imports domain/ only.' }]),
  layer(['crypto/**/*.ts'], [{ regex: into(except('crypto', 'domain')), message: 'crypto/ imports domain/ only.' }]),
  layer(['net/**/*.ts'], [{ regex: into(except('net', 'domain')), message: 'net/ imports domain/ only.' }]),
);
