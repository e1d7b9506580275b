// @ts-check
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier/flat';
import tseslint from 'typescript-eslint';
import { appRules, layerRules } from './tools/layers.mjs';

export default defineConfig(
  {
    ignores: ['dist/', 'node_modules/', 'coverage/', 'reports/', '.stryker-tmp/', '**/*.js', '**/*.cjs', '**/*.mjs', '!tools/**/*.mjs'],
  },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        // Mirror tsconfig. With both on, consistent-type-imports skips files that use decorators:
        // a constructor parameter's class is a runtime value there (design:paramtypes), and
        // turning its import into `import type` would break Nest's dependency injection.
        emitDecoratorMetadata: true,
        experimentalDecorators: true,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports' },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // tools/**/*.mjs are Node scripts (the package test, the Dockerfile runner): Node's globals.
    files: ['tools/**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'console', 'setTimeout', 'clearTimeout', 'fetch', 'AbortSignal', 'URL', 'Buffer'].map(
          (name) => [name, 'readonly'],
        ),
      ),
    },
  },
  {
    // ioredis is an optional peer (an app on the memory store alone lacks it): the library names
    // its types anywhere, and loads it in one place, store/redis/create-redis-client.ts.
    files: ['libs/rate-limit/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'ioredis',
              allowTypeImports: true,
              message: 'ioredis is an optional peer: import its types only (isCluster, isRedisClient in util/ioredis-shapes.ts)',
            },
          ],
        },
      ],
    },
  },
  // Dependencies point one way (tools/layers.mjs, docs/ARCHITECTURE.md).
  ...layerRules(),
  appRules,
  // Last: turns off every stylistic rule that Prettier owns.
  prettier,
);
