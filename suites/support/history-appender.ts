// A child process for the concurrent-append test: appends `count` records, commits <label>-0 ...
// <label>-<count-1>, to one history file through the library (lock, re-read, atomic write), as
// `npm run history -- append` does.
//
//   node --experimental-strip-types suites/support/history-appender.ts <file> <label> <count>
import { appendHistory } from '../../src/history/history-file.ts';
import { HISTORY_RECORD_VERSION, type HistoryRecord } from '../../src/history/history-record.ts';

const [file, label, count] = process.argv.slice(2);
if (!file || !label || !count) throw new Error('usage: history-appender.ts <file> <label> <count>');

for (let i = 0; i < Number(count); i++) {
  const record: HistoryRecord = {
    v: HISTORY_RECORD_VERSION,
    date: new Date().toISOString(),
    commit: `${label}-${i}`,
    device: { name: 'Test CPU', slug: 'test-cpu' },
    cases: {
      'gelu_scale/1M/fp32': {
        case: 'gelu_scale',
        shape: '1M',
        dtype: 'fp32',
        verdict: 'SAME',
        speedup: [1.5, 1.4, 1.6],
      },
    },
  };
  await appendHistory(file, record, { pollMs: 5, waitMs: 60_000, warn: (m) => console.error(m) });
}
