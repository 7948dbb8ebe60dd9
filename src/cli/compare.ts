/**
 * `npm run compare -- <base.json> <head.json> [--delta <f>] [--markdown <file>]`: a noise-aware A/B of two
 * results files of one device model, with the gate's statistics (src/compare/compare-runs.ts). Prints the
 * table; exits with the number of SLOWER cases (at most 100), or 2 when it cannot compare (a usage error, a
 * file that cannot be read, or files that differ in device model or schema version; the message says which).
 * Only this entry point sets the exit code.
 */
import { writeFileAtomic } from '../base/atomic-write.ts';
import { decimalArg, UsageError } from '../base/cli-args.ts';
import { COMPARE_DEFAULT_DELTA, compareResults, comparisonCounts } from '../compare/compare-runs.ts';
import { loadPair } from '../compare/load-pair.ts';
import { colorEnabled } from '../report/color.ts';
import { renderCompareConsole, renderCompareMarkdown } from '../report/compare-report.ts';
import { parseCommandLine, runCommand } from './command-line.ts';

const HELP = `Usage: npm run compare -- <base.json> <head.json> [--delta <f>] [--markdown <file>]
  <base.json>        the run to compare against (a fusebench-results.json)
  <head.json>        the run being judged, of the same device model
  --delta <f>        SAME band ±f for every case, 0 < f < 1 (default: each case's δ from the
                     head run's gate on this GPU, its baselines' between-run noise; else ${COMPARE_DEFAULT_DELTA})
  --markdown <file>  also write the comparison as Markdown
Exit status: the number of SLOWER cases (at most 100); 2, with the reason on stderr, when it cannot compare.`;

const OPTIONS = {
  delta: { type: 'string' },
  markdown: { type: 'string' },
} as const;

async function main(): Promise<void> {
  const parsed = parseCommandLine(process.argv.slice(2), OPTIONS, HELP);
  if (!parsed) return;
  const [baseFile, headFile, ...extra] = parsed.positionals;
  if (!baseFile || !headFile || extra.length > 0) {
    throw new UsageError(`Expected two results files, base then head; got ${parsed.positionals.length}\n\n${HELP}`);
  }
  const delta = parseDelta(parsed.values.delta);
  const { base, head } = loadPair(baseFile, headFile);
  const cmp = compareResults(base.results, head.results, delta);
  console.log(renderCompareConsole(cmp, base, head, colorEnabled(process.stdout)));
  const out = parsed.values.markdown;
  if (out) {
    writeFileAtomic(out, renderCompareMarkdown(cmp, base, head));
    console.log(`wrote ${out}`);
  }
  process.exitCode = Math.min(100, comparisonCounts(cmp).SLOWER);
}

/** δ from --delta: a fraction in (0, 1); undefined without it (each case's own δ). */
function parseDelta(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const v = decimalArg(raw);
  if (!Number.isFinite(v) || v <= 0 || v >= 1) {
    throw new UsageError(`Expected a fraction between 0 and 1 for --delta (0.05 = ±5%) but received '${raw}'`);
  }
  return v;
}

// Nothing was compared: 2, as for a usage error (1 would read as one SLOWER case).
runCommand(main, () => 2);
