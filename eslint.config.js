// ESLint (flat config) with typescript-eslint's recommended rules, on the TypeScript sources.
// Formatting is Prettier's business (.prettierrc.json); no stylistic rules here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';

/** The one file of src/ that may build a RegExp at run time (its patterns are templates in the source, its values literals). */
const REGEX_HELPER = 'src/util/regex.ts';
const NO_RUNTIME_REGEXP = `build the pattern with \`regex\` (${REGEX_HELPER}): its syntax stays in the source, values are literals`;

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'lean/.build/**', 'lean/envs/**', 'bench/results/**', '.tap/**'] },
  // The tests' compile cache (scripts/ts): generated JavaScript.
  { ignores: ['.cache/**'] },
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
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        performance: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        structuredClone: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        fetch: 'readonly',
        queueMicrotask: 'readonly',
        NodeJS: 'readonly',
      },
    },
    rules: {
      // `_`-prefixed names are deliberately unused (destructuring to drop a field, positional parameters).
      // Regexes over Lean's printed layout say how many spaces they expect literally (`h :\n    T`).
      'no-regex-spaces': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrors: 'none',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
    },
  },
  {
    // Node 20 holds AbortSignal.any's sources only weakly: a timeout source nothing else holds is
    // collected and the combined signal never aborts (src/util/timeout-signal.ts says more).
    files: ['src/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'AbortSignal',
          property: 'any',
          message:
            "use deadlineSignal (src/util/timeout-signal.ts) or one AbortController: Node 20 holds any()'s sources weakly",
        },
      ],
    },
  },
  {
    // Regexes over request text must not backtrack super-linearly (a pattern whose match time grows
    // faster than its input), and none may be built from text at run time except through the helper.
    files: ['src/**'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='RegExp']", message: NO_RUNTIME_REGEXP },
        { selector: "CallExpression[callee.name='RegExp']", message: NO_RUNTIME_REGEXP },
      ],
    },
  },
  { files: [REGEX_HELPER], rules: { 'no-restricted-syntax': 'off' } },
  {
    // The REPL process double is a plain script whose `switch` falls through on purpose.
    files: ['test/fixtures/**'],
    rules: { 'no-fallthrough': 'off', 'no-case-declarations': 'off' },
  },
);
