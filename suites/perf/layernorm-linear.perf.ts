import { layerNormLinear } from '../../src/cases/layernorm-linear.ts';
import { definePerfSuite } from '../../src/perf-suite.ts';

definePerfSuite(layerNormLinear);
