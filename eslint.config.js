// ESLint for the TypeScript and the build scripts: typescript-eslint's recommended rules, with
// the few exceptions this code base has reasons for (stated beside each).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'build/', 'prebuilds/', 'src/generated/', '.ci/tools/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // tsoa needs a named interface for every response schema, often `interface X extends Page<Y> {}`.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // `_name` marks a parameter an interface requires but this implementation does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Tests and benches poke at JSON bodies and native internals whose shapes they assert.
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['test/helpers/browser*.ts', 'test/helpers/webrtc-page.ts', 'test/**/*.e2e.test.ts', 'assets/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
