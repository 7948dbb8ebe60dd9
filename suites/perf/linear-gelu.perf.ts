import { linearGelu } from '../../src/cases/linear-gelu.ts';
import { definePerfSuite } from '../../src/perf-suite.ts';

definePerfSuite(linearGelu);
