// Lint and layout rules for the sources, tests and scripts: typescript-eslint's recommended
// checks that need no type information, and a few layout rules (@stylistic) that hold the house
// style: two-space indent, single quotes, semicolons, lines of at most 200 characters.
// `npm test` runs it (npm run lint); `npm run lint -- --fix` repairs what it can.
import tseslint from 'typescript-eslint';
import stylistic from '@stylistic/eslint-plugin';

export default tseslint.config(
  { ignores: ['.tmp/**', 'tests/bench/.*', 'node_modules/**', 'dist/**', 'build/**', 'docs/api/**', 'tests/fixtures/**', '**/*.d.ts'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mjs'],
    plugins: { '@stylistic': stylistic },
    rules: {
      '@stylistic/indent': ['error', 2, { SwitchCase: 1, ignoredNodes: ['ConditionalExpression *', 'TemplateLiteral *'], flatTernaryExpressions: true, offsetTernaryExpressions: true }],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: 'always' }],
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/eol-last': 'error',
      '@stylistic/no-tabs': 'error',
      '@stylistic/max-len': ['error', { code: 200, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
      // the hot loops assert indices they know are in range (noUncheckedIndexedAccess)
      '@typescript-eslint/no-non-null-assertion': 'off',
      // a variable a closure reads before its one assignment (a panel row made below its knobs)
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // tests build hostile input on purpose, typed loosely
    files: ['tests/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
