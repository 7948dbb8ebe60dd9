/**
 * `fusebench compare <base.json> <head.json> [--delta <f>] [--markdown <file>]` (`npm run compare -- ...`):
 * a noise-aware A/B of two results files of one device model, with the gate's statistics
 * (src/compare/compare-runs.ts). Prints the table; exits 1 when a case is SLOWER, 2 when it cannot compare
 * (a usage error, a file that cannot be read, or files that differ in device model or schema version; the
 * message says which).
 */
import { checkNotInput, checkWritableFile, writeFileAtomic } from '../base/atomic-write.ts';
import { checkOutput, deltaArg, UsageError } from '../base/cli-args.ts';
import { logText } from '../base/log-text.ts';
import { finishDespiteClosedOutput } from '../base/signal-cleanup.ts';
import { COMPARE_DEFAULT_DELTA, compareResults, comparisonCounts } from '../compare/compare-runs.ts';
import { loadPair } from '../compare/load-pair.ts';
import { colorEnabled } from '../report/color.ts';
import { renderCompareConsole, renderCompareMarkdown } from '../report/compare-report.ts';
import { EXIT, type ExitCode, parseCommandLine, renderHelp, runIfEntry } from './command-line.ts';

const HELP = renderHelp({
  usage: `Usage: fusebench compare <base.json> <head.json> [--delta <f>] [--markdown <file>]
Compares two runs of one device model, case by case, with the gate's statistics.
  <base.json>        the run to compare against (a fusebench-results.json)
  <head.json>        the run being judged, of the same device model
  --delta <f>        SAME band ±f for every case, 0 < f < 1 (default: each case's δ from the
                     head run's gate on this GPU, its baselines' between-run noise; else ${COMPARE_DEFAULT_DELTA})
  --markdown <file>  also write the comparison as Markdown
  -h, --help         this text`,
  examples: [
    'fusebench compare main/fusebench-results.json perf-out/fusebench-results.json',
    'fusebench compare base.json head.json --delta 0.03',
    'npm run compare -- base.json head.json --markdown compare.md',
  ],
  exits: {
    ok: 'no case is SLOWER',
    regression: 'a case is SLOWER in head than in base',
    usage:
      'cannot compare: a bad flag, a file that cannot be read or is not valid, two device models or schema versions',
  },
});

const OPTIONS = {
  delta: { type: 'string' },
  markdown: { type: 'string' },
} as const;

export async function main(argv: string[]): Promise<ExitCode> {
  const parsed = parseCommandLine(argv, OPTIONS, HELP);
  if (!parsed) return EXIT.ok;
  const [baseFile, headFile, ...extra] = parsed.positionals;
  if (!baseFile || !headFile || extra.length > 0) {
    throw new UsageError(`Expected two results files, base then head; got ${parsed.positionals.length}\n\n${HELP}`);
  }
  const delta = deltaArg(parsed.values.delta);
  const out = parsed.values.markdown;
  // Before the comparison: a SLOWER verdict must not be lost to a write that could not succeed.
  if (out) {
    checkOutput('--markdown', () => {
      checkWritableFile(out);
      checkNotInput(out, [baseFile, headFile]);
    });
  }
  const { base, head } = loadPair(baseFile, headFile);
  const cmp = compareResults(base.results, head.results, delta);
  // Compared: a reader that goes away now (`| head`) loses neither the Markdown nor a regression's exit 1.
  finishDespiteClosedOutput();
  console.log(renderCompareConsole(cmp, base, head, colorEnabled(process.stdout)));
  if (out) {
    writeFileAtomic(out, renderCompareMarkdown(cmp, base, head));
    console.log(`wrote ${logText(out)}`);
  }
  return comparisonCounts(cmp).SLOWER > 0 ? EXIT.regression : EXIT.ok;
}

// A thrown error: nothing was compared, EXIT.usage.
runIfEntry(import.meta.url, main);
