import { biasGelu } from '../../src/cases/bias-gelu.ts';
import { definePerfSuite } from '../../src/perf-suite.ts';

definePerfSuite(biasGelu);
