import { geluScale } from '../../src/cases/gelu-scale.ts';
import { definePerfSuite } from '../../src/perf-suite.ts';

definePerfSuite(geluScale);
