// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import svelteConfig from './svelte.config.js';

/**
 * Layer rules (CONTRIBUTING.md, ARCHITECTURE.md), enforced here rather than in prose. Each entry: the files of a
 * layer and the imports they must not make.
 */
const pattern = (group, message) => ({ group, message });

const forbidFramework = [
  pattern(['svelte', 'svelte/*'], 'core/ is framework-free: no svelte.'),
  pattern(['dexie', 'dexie-*'], 'core/ reaches storage through core/ports.ts, never dexie.'),
  pattern(['comlink'], 'core/ never knows a worker exists: no comlink.'),
  pattern(['@huggingface/transformers', 'onnxruntime-web', 'onnxruntime-node'], 'transformers.js and ONNX Runtime live in workers/.'),
  pattern(['ai', '@ai-sdk/*'], 'core/ reaches providers through the LlmClient port.'),
];
const layer = (name) => pattern([`**/${name}/**`, `**/${name}`], `core/ must not import ${name}/.`);

const layerRules = [
  {
    files: ['src/util/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [pattern(['*', '!./*', '!../util/*'], 'util/ is dependency-free.')] },
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
            ...forbidFramework,
            layer('storage'),
            layer('workers'),
            layer('state'),
            layer('app'),
            layer('llm'),
            layer('pwa'),
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'Inject through core/ports.ts.' },
        { name: 'setTimeout', message: 'Inject a scheduler through core/ports.ts.' },
        { name: 'setInterval', message: 'Inject a scheduler through core/ports.ts.' },
        { name: 'localStorage', message: 'Use a store port.' },
        { name: 'indexedDB', message: 'Use a store port.' },
        { name: 'window', message: 'core/ has no DOM.' },
        { name: 'document', message: 'core/ has no DOM.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Use the Clock port.' },
        { object: 'Math', property: 'random', message: 'Use the Ids port.' },
      ],
    },
  },
  {
    files: ['src/boot/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [pattern(['*', '!zod', '!./*', '!../util/*'], 'boot/ sets up an entry point (page or worker) before anything runs: zod and util/ only.')] },
      ],
    },
  },
  {
    files: ['src/llm/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            pattern(['svelte', 'svelte/*', 'dexie', 'comlink'], 'llm/ is not UI, storage or a worker.'),
            pattern(['**/storage/**', '**/workers/**', '**/state/**', '**/app/**'], 'llm/ may import core/model and core/ports only.'),
          ],
        },
      ],
    },
  },
  {
    files: ['src/storage/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            pattern(['svelte', 'svelte/*', 'comlink', 'ai', '@ai-sdk/*'], 'storage/ is Dexie only.'),
            pattern(['**/workers/**', '**/state/**', '**/app/**', '**/llm/**'], 'storage/ may import core/model and core/ports only.'),
          ],
        },
      ],
    },
  },
  {
    files: ['src/workers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            pattern(['svelte', 'svelte/*'], 'workers/ have no UI.'),
            pattern(['**/state/**', '**/app/**'], 'workers/ must not import UI or state.'),
            pattern(['**/pwa/**'], 'workers/ do not import the PWA shell; setup shared with the page lives in boot/.'),
          ],
        },
      ],
    },
  },
  {
    files: ['src/state/**/*.ts', 'src/app/**/*.ts', 'src/app/**/*.svelte', 'src/pwa/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            pattern(['dexie', 'dexie-*'], 'UI code reads and writes through storage/ stores, not Dexie.'),
            pattern(['**/core/agent/**'], 'The agent loop runs in the worker; the UI talks to it through workers/agent/agent.client.'),
            pattern(['**/workers/*/!(*.client|*.api)'], 'Only worker clients and contracts are public.'),
            pattern(['@huggingface/transformers', 'onnxruntime-web', 'onnxruntime-node'], 'transformers.js and ONNX Runtime live in workers/.'),
            pattern(['**/llm/**'], 'Providers are called from the agent worker; model and provider facts live in core/model.'),
            pattern(['**/storage/*', '**/storage/**/*', '!**/components/storage/**'], 'Import storage/ through its index (`storage`), not its internals.'),
          ],
        },
      ],
    },
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'dist-*/',
      'node_modules/',
      'test-results/',
      'playwright-report/',
      'test/fixtures/',
      'test/golden/context/',
      'test/bench/.models/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  ...svelte.configs.recommended,
  prettier,
  ...svelte.configs.prettier,
  {
    languageOptions: {
      globals: { ...globals.browser, ...globals.node },
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.js', 'scripts/*.mjs', '.ci/*.mjs'],
        },
        tsconfigRootDir: import.meta.dirname,
        extraFileExtensions: ['.svelte'],
      },
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: {
      parserOptions: { parser: tseslint.parser, svelteConfig },
    },
  },
  {
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  ...layerRules,
  {
    files: ['test/**/*.ts', 'scripts/**/*.mjs', '*.config.ts', '*.config.js'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['scripts/**/*.mjs', '.ci/**/*.mjs', '*.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
