import { attentionLayerNormResidual } from '../../src/cases/attention.ts';
import { definePerfSuite } from '../../src/perf-suite.ts';

definePerfSuite(attentionLayerNormResidual);
