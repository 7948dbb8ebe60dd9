import { transformerBlock } from '../../src/cases/transformer-block.ts';
import { definePerfSuite } from '../../src/perf-suite.ts';

definePerfSuite(transformerBlock);
