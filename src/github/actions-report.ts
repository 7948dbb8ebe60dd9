/**
 * The GitHub Actions side of a perf run: an annotation per case that needs attention (SLOWER, FAILED
 * and ERRORED as errors on the kernel's source file; a SLOWER that does not gate as a warning; FASTER and
 * AMBIGUOUS as notices), one warning when shapes had no baseline to gate on, step outputs with the verdict
 * counts, and the job summary. Only inside GitHub Actions; the environment is read
 * only for defaults, so tests pass a sink and a path in. Never throws: a failure is a warning.
 */
import { appendFileSync } from 'node:fs';
import type { AnnotationProperties } from '@actions/core';
import { signedPct, speedup, times } from '../base/format.ts';
import { logLines } from '../base/log-text.ts';
import { noBaselineHint } from '../report/console-summary.ts';
import { NAME_CHARS, NOTE_CHARS, plain } from '../report/escape.ts';
import { renderJobSummary } from '../report/job-summary.ts';
import { gatedTiming } from '../results/judged-timing.ts';
import type { CaseResult, ResultsFile } from '../results/results.ts';
import { caseVerdict, countVerdicts, verdictGates } from '../results/verdict.ts';

/** The part of @actions/core this uses; the module itself satisfies it, tests pass a fake. */
export interface ActionsSink {
  error(message: string, properties?: AnnotationProperties): void;
  warning(message: string, properties?: AnnotationProperties): void;
  notice(message: string, properties?: AnnotationProperties): void;
  setOutput(name: string, value: unknown): void;
}

/** One annotation to emit. */
export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  message: string;
  properties: AnnotationProperties;
}

/** Where to report; the defaults come from the environment of an Actions step. */
export interface ActionsReportOptions {
  sink: ActionsSink;
  env?: NodeJS.ProcessEnv;
  /** The job summary file; default $GITHUB_STEP_SUMMARY. */
  summaryPath?: string;
}

/** Annotation titles are cut to this many characters; messages to NOTE_CHARS plus the speedups. */
const TITLE_CHARS = 2 * NAME_CHARS;

// Annotations are plain text, but every string in them comes from the results file: each is made one
// line and cut (escape.ts `plain`), so a hostile field can neither add lines nor flood the log.
function describe(c: CaseResult): string {
  const sp = c.gate?.speedup;
  // The timing the gate judged (batched on launch-bound shapes gated that way), as the report shows it.
  const t = gatedTiming(c);
  const now = t ? speedup(t.speedup, t.method === 'batched') : 'not measured';
  const vs = sp ? ` vs baseline ${times(sp.baseline)} (${signedPct(sp.current / sp.baseline)})` : '';
  return `${plain(c.key)}: speedup ${now}${vs}.${c.gate?.message ? ` ${plain(c.gate.message, NOTE_CHARS)}` : ''}`;
}

/** A repository-relative path for the annotation's `file`, or undefined for anything else. */
function sourceFile(path: string | undefined): string | undefined {
  return path && /^[\w.-]+(\/[\w.-]+)*$/.test(path) && !path.split('/').includes('..') ? path : undefined;
}

/** The annotations of a run (pure). */
export function collectAnnotations(results: ResultsFile): Annotation[] {
  const gpu = plain(results.device.name);
  const out: Annotation[] = [];
  for (const c of results.cases) {
    const v = caseVerdict(c);
    const file = sourceFile(c.sources[0]);
    const what = `${plain(c.title)} ${plain(c.shape.label)} ${plain(c.dtype)}`;
    const at = (title: string): AnnotationProperties => {
      const t = plain(title, TITLE_CHARS);
      return file ? { title: t, file } : { title: t };
    };
    if (v === 'SLOWER' && !verdictGates(c))
      // Judged against a baseline that does not gate: perf exits 0, so not an error.
      out.push({
        level: 'warning',
        message: describe(c),
        properties: at(`fusebench: ${what} is SLOWER on ${gpu} (not gating)`),
      });
    else if (v === 'SLOWER')
      out.push({
        level: 'error',
        message: describe(c),
        properties: at(`fusebench: ${what} is SLOWER on ${gpu}`),
      });
    else if (v === 'FAILED' || v === 'ERRORED') {
      out.push({
        level: 'error',
        message: `${plain(c.key)}: ${plain(c.reason ?? v, NOTE_CHARS)}`,
        properties: at(`fusebench: ${what} ${v} on ${gpu}`),
      });
    } else if (v === 'FASTER' || v === 'AMBIGUOUS') {
      out.push({
        level: 'notice',
        message: describe(c),
        properties: at(`fusebench: ${what} is ${v} on ${gpu}`),
      });
    }
  }
  // A first run on a GPU model, or new shapes: nothing of them gated, and the run is green. Said once, so
  // that no one reads a green check as "no regression" (the workflow baselines.yml records them).
  const hint = noBaselineHint(results);
  if (hint) {
    const n = results.cases.filter((c) => c.gate?.status === 'NO_BASELINE').length;
    out.push({
      level: 'warning',
      message: plain(`${hint} (or run the baselines workflow for this GPU)`, 2 * NOTE_CHARS),
      properties: {
        title: plain(`fusebench: ${n} shape${n === 1 ? '' : 's'} on ${gpu} not gated: no baseline`, TITLE_CHARS),
      },
    });
  }
  return out;
}

/** GitHub shows at most 10 annotations of a level for a step, and drops the rest without a word. */
const ANNOTATIONS_SHOWN = 10;

/**
 * At most ANNOTATIONS_SHOWN of each level, errors first as collected: past it, the last one shown says how
 * many more there are and where they all are (the job summary, the report), instead of GitHub dropping them.
 */
export function cappedAnnotations(all: readonly Annotation[], gpu: string): Annotation[] {
  const count = { error: 0, warning: 0, notice: 0 };
  for (const a of all) count[a.level]++;
  const seen = { error: 0, warning: 0, notice: 0 };
  // In the order collected; the count of the rest after each capped level's last one shown.
  const shown = all.filter((a) => count[a.level] <= ANNOTATIONS_SHOWN || ++seen[a.level] < ANNOTATIONS_SHOWN);
  const rest = (['error', 'warning', 'notice'] as const).flatMap((level): Annotation[] => {
    const more = count[level] - (ANNOTATIONS_SHOWN - 1);
    if (count[level] <= ANNOTATIONS_SHOWN) return [];
    const what = {
      error: 'SLOWER, FAILED or ERRORED',
      warning: 'SLOWER (not gating) or without a baseline',
      notice: 'FASTER or AMBIGUOUS',
    }[level];
    return [
      {
        level,
        message: `${more} more ${what} shapes; the job summary and BENCHMARK_RESULTS.md list every one`,
        properties: { title: plain(`fusebench: ${more} more on ${gpu}`, TITLE_CHARS) },
      },
    ];
  });
  return [...shown, ...rest];
}

/** Reports a run to GitHub Actions; does nothing outside Actions (GITHUB_ACTIONS !== 'true'). Returns whether it ran. */
export function reportToActions(results: ResultsFile, options: ActionsReportOptions): boolean {
  const env = options.env ?? process.env;
  if (env.GITHUB_ACTIONS !== 'true') return false;
  const { sink } = options;
  const warn = (what: string, e: unknown) => {
    const message = `fusebench: could not ${what}: ${e instanceof Error ? e.message : String(e)}`;
    try {
      sink.warning(message);
    } catch {
      // The message quotes paths from the environment (GITHUB_STEP_SUMMARY): escaped, as every console line.
      console.warn(logLines(message));
    }
  };
  try {
    for (const a of cappedAnnotations(collectAnnotations(results), plain(results.device.name))) {
      sink[a.level](a.message, a.properties);
    }
  } catch (e) {
    warn('write the annotations', e);
  }
  // Without a GITHUB_OUTPUT file @actions/core falls back to the retired `::set-output` command, and with a
  // path to no file yet it refuses: the file is made, as a runner makes it.
  const outputPath = env.GITHUB_OUTPUT;
  if (!outputPath) warn('set the step outputs', new Error('no output file (GITHUB_OUTPUT is not set)'));
  else {
    try {
      appendFileSync(outputPath, '');
      for (const [name, value] of Object.entries(countVerdicts(results))) sink.setOutput(name, value);
    } catch (e) {
      warn('set the step outputs', e);
    }
  }
  const summaryPath = options.summaryPath ?? env.GITHUB_STEP_SUMMARY;
  if (!summaryPath) {
    warn('write the job summary', new Error('no summary file (GITHUB_STEP_SUMMARY is not set)'));
    return true;
  }
  try {
    appendFileSync(summaryPath, renderJobSummary(results));
  } catch (e) {
    warn(`write the job summary to ${summaryPath}`, e);
  }
  return true;
}
