/**
 * fusebench's import rules, as data (`npm test` runs them: suites/unit/house-rules.test.ts; by hand:
 * `npx depcruise src cases vitest.perf.config.ts`). The layers, top to bottom: a module may import its
 * own layer and any layer below it, never one above. kernels/ must not include native/ either: C++ is
 * checked by the compiler's own include resolution in the same test.
 */
/** Top to bottom. */
const LAYERS = [
  { name: 'cli', path: '^(src/cli/|vitest\\.perf\\.config\\.ts$|vitest\\.config\\.ts$)', what: 'the entry points' },
  { name: 'run', path: '^src/run/', what: 'a perf run: options, suite, measurement, reporter' },
  { name: 'cases', path: '^cases/', what: 'the case folders and their registry' },
  { name: 'github', path: '^src/github/', what: 'GitHub Actions output and workflow checks' },
  { name: 'site', path: '^src/site/', what: 'the static dashboard' },
  { name: 'report', path: '^src/report/', what: 'rendering: console, Markdown, charts' },
  { name: 'export', path: '^src/export/', what: "other tools' formats" },
  { name: 'compare', path: '^src/compare/', what: 'comparing two runs' },
  { name: 'history', path: '^src/history/', what: 'the history of runs' },
  { name: 'gate', path: '^src/gate/', what: 'baselines and the regression decision' },
  { name: 'results', path: '^src/results/', what: 'the results file and its verdicts' },
  { name: 'reference', path: '^src/reference/', what: 'float64 references' },
  { name: 'case', path: '^src/case/', what: 'the case API' },
  { name: 'addon', path: '^src/addon/', what: 'the native facade and the device' },
  { name: 'base', path: '^src/base/', what: 'stats, files, text, command-line basics' },
];
/** Tests and their helpers sit above everything and may import anything. */
const TESTS = '(^suites/|\\.test\\.ts$)';

module.exports = {
  forbidden: [
    ...LAYERS.slice(1).map((layer, i) => ({
      name: `no-climb-from-${layer.name}`,
      severity: 'error',
      comment: `${layer.name} (${layer.what}) may import only its own layer and those below: ${LAYERS.slice(i + 2)
        .map((l) => l.name)
        .join(', ')}`,
      from: { path: layer.path, pathNot: TESTS },
      to: { path: LAYERS.slice(0, i + 1).map((l) => l.path).join('|') },
    })),
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'an import cycle: the layers are a direction, not a web',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-tests-from-code',
      severity: 'error',
      comment: 'the harness never imports a test or a test helper',
      from: { pathNot: TESTS },
      to: { path: TESTS },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'an import that resolves to no file',
      from: {},
      to: { couldNotResolve: true, path: '^[.]' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^node_modules/|^build/|^\\.device/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
