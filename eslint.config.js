// ESLint with type information (typescript-eslint) and React's hook rules; formatting is Prettier's.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** src/core's folders from the bottom up; a folder may import only those before it. */
const CORE_LAYERS = [
  'platform',
  'providers',
  'sandbox',
  'tools',
  'permissions',
  'loop',
  'hooks',
  'config',
  'mcp',
  'jobs',
  'worktrees',
  'agents',
  'remote',
  'commands',
  'session',
];
const FRONT_ENDS = ['**/ui/*', '**/cli/*', '**/start/*', 'ink', 'react', 'chalk'];
/** What src/ui and src/cli may not import: anything in src/core but its face, src/core/index.ts. */
const CORE_FACE = {
  group: ['**/core/*/**'],
  message: 'import the core through src/core/index.ts (export what you need there)',
};

export default tseslint.config(
  { ignores: ['dist/', 'dist.partial/', 'node_modules/', 'coverage/', 'bench/.run.mjs', 'bench/.node/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Unused names are errors, except the `_name` convention for what is dropped on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // `void promise` marks a deliberately unawaited call; everything else must be handled.
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: true }],
      // A tool's execute is async by contract; a body with nothing to await is still a fine one.
      '@typescript-eslint/require-await': 'off',
      // Indexing is unchecked in this tsconfig, so `list[0]!` reads as "known to be there" and stays.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  // The core knows no front end: nothing in it may import the UI, the CLI or the start-up they share.
  // And its folders are layers, bottom to top (docs/architecture.md): a folder imports only the
  // ones below it, so a new upward import fails `npm run lint`.
  ...CORE_LAYERS.map((layer, i) => ({
    files: [`src/core/${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: FRONT_ENDS, message: 'src/core must not depend on a front end' },
            {
              group: ['../index.js', '../../index.js'],
              message: "src/core/index.ts is the front ends' face; import the module itself",
            },
            ...CORE_LAYERS.slice(i + 1).map((above) => ({
              group: [`../${above}/*`, `../../${above}/*`],
              message: `src/core/${layer} is below ${above} in the layer order (docs/architecture.md): move what both need down`,
            })),
          ],
        },
      ],
    },
  })),
  // The front ends see the core through one face, src/core/index.ts (types included), so what
  // they rely on is listed in one place and a change below it cannot reach them unannounced.
  {
    files: ['src/cli/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [CORE_FACE] }] },
  },
  {
    // React's hook rules for the UI only: elsewhere `use…` names (test fixtures) are not hooks.
    files: ['src/ui/**/*.ts', 'src/ui/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // Ink hands keys that arrive in one read to useInput as one event: handlers take them through useKeys.
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'ink', importNames: ['useInput'], message: 'take keys with useKeys (src/ui/bindings/use-keys.ts)' }],
          patterns: [CORE_FACE],
        },
      ],
    },
  },
  {
    // The one place that listens to Ink's useInput, and splits its events into typed keys.
    files: ['src/ui/bindings/use-keys.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [CORE_FACE] }] },
  },
  {
    // Tests read JSON off the wire and out of transcripts, and fakes are async without awaiting:
    // the `any` of a parsed line and an await-less fake are what tests are made of.
    files: ['test/**/*.ts', 'test/**/*.tsx', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      parserOptions: { projectService: false },
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
      },
    },
  },
);
