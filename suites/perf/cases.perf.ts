// The perf suites of every case, generated from the registry in its order (cases/registry.ts).
import { loadCases } from '../../cases/registry.ts';
import { definePerfSuites } from '../../src/run/perf-suite.ts';

definePerfSuites(await loadCases());
