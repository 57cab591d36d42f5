import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Every file obsync reads goes through the bounded reader (src/manifests/files.ts: regular files
 * only, size-capped, never blocked by a FIFO): the ways around it are not importable elsewhere.
 */
const BOUNDED_READS = 'Read files with readRegularFile / readRegularBytes (src/manifests/files.ts): regular files only, size-capped.';
const fileReaders = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'].map((name) => ({
  name,
  importNames: ['readFile', 'readFileSync', 'createReadStream', 'readSync'],
  message: BOUNDED_READS,
}));
/**
 * Every file obsync writes into the user's project (export, init, schema, a saved plan, keys --out)
 * is written whole or not at all, never through a link (src/manifests/atomic-write.ts): the ways
 * around it are not importable where those files are written.
 */
const ATOMIC_WRITES =
  'Write files into the project with writeFileAtomically / writeFilesAtomically (src/manifests/atomic-write.ts): whole or not at all.';
const fileWriters = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'].map((name) => ({
  name,
  importNames: [
    'writeFile',
    'writeFileSync',
    'appendFile',
    'appendFileSync',
    'createWriteStream',
    'open',
    'openSync',
    'writeSync',
    'truncate',
    'truncateSync',
    'copyFile',
    'copyFileSync',
    'rename',
    'renameSync',
  ],
  message: ATOMIC_WRITES,
}));
const restrict = (patterns, paths = []) => ({ 'no-restricted-imports': ['error', { patterns, paths }] });

export default tseslint.config(
  {
    ignores: [
      'docs/.vitepress/**',
      'dist/**',
      'dist-bench/**',
      '**/.obsync/**',
      'node_modules/**',
      'coverage/**',
      '.obsync/**',
      'bench/results*',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // One program from tsconfig.json rather than the project service (typescript-eslint's default): the same
      // rules and files, about a quarter less CPU over src/ (95 s against 123 s here), for CI's ten minutes.
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  // Tests and benches are linted without type information: the type-aware rules over them cost
  // as much CPU as a third of the suite, which CI's ten minutes on two cores no longer hold
  // (docs/development.md). tsc still checks their types; src keeps every type-aware rule.
  {
    files: ['test/**/*.ts', 'src/**/*.test.ts', 'bench/**/*.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
  // Lines stay within biome's width (140) where biome cannot break them: strings, templates, comments, regexes
  // (issue 46). Only a line with a URL may be longer.
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.js', '*.ts', '*.js'],
    rules: { 'max-len': ['error', { code: 140, ignoreUrls: true }] },
  },
  // The ports of the real server's integration tests read response bodies loosely, as supertest
  // does (`res.body.data.tiles[0].config`), so a reader can set them beside the originals.
  {
    files: ['test/sandbox/peer-hyperdx/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  // Layering (DESIGN §8): only remote/ imports undici; planner and kinds stay pure.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/remote/**'],
    rules: restrict([{ group: ['undici'], message: 'Only src/remote talks HTTP (DESIGN §8).' }]),
  },
  // Every input is bounded: files are read by the bounded reader only (tests may read fixtures as they like).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/remote/**', 'src/manifests/files.ts', '**/*.test.ts'],
    rules: restrict([{ group: ['undici'], message: 'Only src/remote talks HTTP (DESIGN §8).' }], fileReaders),
  },
  {
    files: ['src/remote/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: restrict([], fileReaders),
  },
  {
    files: ['src/cli/**/*.ts', 'src/export/**/*.ts', 'src/log/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: restrict([{ group: ['undici'], message: 'Only src/remote talks HTTP (DESIGN §8).' }], [...fileReaders, ...fileWriters]),
  },
  {
    files: ['src/planner/**/*.ts', 'src/kinds/**/*.ts', 'src/core/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: restrict([
      {
        group: ['node:*', 'undici', 'pino', 'chokidar', 'node-cron'],
        message: 'The planner, kinds and core are pure: no I/O (DESIGN §8).',
      },
      {
        group: ['**/remote/**', '**/sandbox/**', '**/cli/**', '**/engine/**', '**/applier/**', '**/daemon/**', '**/inventory/**'],
        message: 'Pure layers must not import I/O layers.',
      },
    ]),
  },
  // obsync copies service and manifest data: `out[key] = value` with the key `__proto__` (JSON and
  // YAML may have one) sets the copy's prototype instead of a key, and so does Object.assign. Keys
  // go through setOwn / assignOwn / copyJson (src/core/json.ts); src/kinds/proto-keys.test.ts checks
  // the kinds' results. Arithmetic on a counter (`+=`) cannot set a prototype and is allowed; an
  // array written by index says so on the line; the sandbox simulates the service and keeps its own data.
  {
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts', 'src/sandbox/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "AssignmentExpression[operator=/^(=|\\?\\?=|\\|\\|=|&&=)$/][left.type='MemberExpression'][left.computed=true]" +
            ":not([left.property.type='Literal'])",
          message: 'Set a computed key with setOwn(out, key, value) (src/core/json.ts): a __proto__ key would set the prototype.',
        },
        {
          selector: "CallExpression[callee.object.name='Object'][callee.property.name='assign']",
          message: 'Use assignOwn(target, source) (src/core/json.ts): Object.assign sets the prototype for a __proto__ key.',
        },
        {
          selector:
            ':matches(ObjectPattern > Property > MemberExpression.value, ArrayPattern > MemberExpression, ForOfStatement > ' +
            'MemberExpression.left, ForInStatement > MemberExpression.left)[computed=true]',
          message:
            'Destructure or loop into a variable, then setOwn(out, key, value) ' +
            '(src/core/json.ts): a __proto__ key would set the prototype.',
        },
        {
          selector:
            ":matches(CallExpression[callee.object.name='Reflect'][callee.property.name='set'], " +
            "MemberExpression[object.name='Object'][computed=true])",
          message: 'Set keys with setOwn / assignOwn (src/core/json.ts): a __proto__ key would set the prototype.',
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**', '**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Only src/cli reads the environment.' },
        { object: 'process', property: 'exit', message: 'Only src/cli exits.' },
        { object: 'process', property: 'argv', message: 'Only src/cli reads argv.' },
      ],
    },
  },
);
