import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Modules of files, network, processes and timers: src/core and src/app reach none of them. */
const IO_MODULES = [
  'node:fs*',
  'fs',
  'fs/*',
  'node:net',
  'net',
  'node:http*',
  'http',
  'https',
  'node:tls',
  'node:dgram',
  'node:child_process',
  'child_process',
  'node:timers*',
  'timers',
  'timers/*',
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'fixtures/**',
      'reports/**',
      'bench/results/**',
      'bench/.corpus/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'No export * : name what a module exports.' },
        { selector: 'ExportDefaultDeclaration', message: 'No default exports.' },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...IO_MODULES, '**/adapters/**', '**/app/**', '**/cli/**'],
              message: 'src/core is pure: no I/O, timers or processes.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'process', 'setTimeout', 'setInterval', 'fetch'],
    },
  },
  {
    // Use cases wire core to adapters: files, network, processes and time only
    // through adapters (the clock is injected: src/core/clock.ts).
    files: ['src/app/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: IO_MODULES,
              message:
                'src/app does no I/O of its own: reach files, network and time through src/adapters.',
            },
            {
              group: ['**/cli/**'],
              message: 'src/app must not import from src/cli (args and exit codes live there).',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...[
          'performance',
          'setTimeout',
          'setInterval',
          'setImmediate',
          'clearTimeout',
          'clearInterval',
          'clearImmediate',
        ].map((name) => ({ name, message: 'Time and timers come from the injected Clock.' })),
        ...['process', 'fetch'].map((name) => ({
          name,
          message: 'src/app does no I/O of its own: go through src/adapters.',
        })),
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'No export * : name what a module exports.' },
        { selector: 'ExportDefaultDeclaration', message: 'No default exports.' },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'src/app takes the time from the injected clock, not Date.now().',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'src/app takes the time from the injected clock, not new Date().',
        },
      ],
    },
  },
  {
    // Functions that fit on a screen: code lines only (blank lines and comments
    // are free, so no reason is ever cut to fit). Wiring is exempt below.
    files: ['src/**/*.ts', 'src/**/*.js'],
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Wiring is exempt: a composition root is a list of parts, and cutting it
    // into helpers only scatters the list (and invents option bags to carry it).
    files: ['src/app/watch/daemon.ts', 'src/app/watch/lifecycle/watch-setup.ts', 'src/cli/run.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    // Adapters are the I/O under the use cases: they never reach up into them.
    files: ['src/adapters/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/app/**', '**/cli/**'],
              message: 'src/adapters must not import from src/app or src/cli.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tool configs are loaded by their tools, which expect a default export.
    files: ['vitest.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        performance: 'readonly',
      },
    },
  },
  {
    // The HTML viewer's script runs in the browser, inlined into the page.
    files: ['src/app/show/render/viewer/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        getComputedStyle: 'readonly',
        Event: 'readonly',
        requestAnimationFrame: 'readonly',
        performance: 'readonly',
      },
    },
    rules: { 'no-var': 'error', 'prefer-const': 'error', eqeqeq: 'error' },
  },
);
