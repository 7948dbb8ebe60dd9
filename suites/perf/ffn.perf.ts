import { ffn } from '../../src/cases/ffn.ts';
import { definePerfSuite } from '../../src/perf-suite.ts';

definePerfSuite(ffn);
