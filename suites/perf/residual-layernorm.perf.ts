import { residualLayerNorm } from '../../src/cases/residual-layernorm.ts';
import { definePerfSuite } from '../../src/perf-suite.ts';

definePerfSuite(residualLayerNorm);
