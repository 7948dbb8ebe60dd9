import { scaleMaskSoftmax } from '../../src/cases/scale-mask-softmax.ts';
import { definePerfSuite } from '../../src/perf-suite.ts';

definePerfSuite(scaleMaskSoftmax);
