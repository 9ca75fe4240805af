import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'examples/**/node_modules/**']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_'}],
      'no-constant-condition': ['error', {checkLoops: false}],
    },
  },
  {
    files: ['src/**/*.ts', 'plugins/**/*.ts'],
    ignores: ['src/cli/commands/**'],
    rules: {'no-console': 'error'},
  },
)
