/**
 * What the dashboard is built from: a folder of history files (`<device-slug>.jsonl`, the perf-history
 * branch's `history/`), the latest results file of each GPU, and their baseline files. Read with the
 * project's loaders (history-file.ts names a broken line by file:line and skips it; load-runs.ts sets aside a
 * results or baseline file that fails its schema, naming the file and field), so one bad file or line costs
 * only itself; two results files of one GPU are refused, as merge refuses them.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isPlainSlug } from '../base/device-slug.ts';
import type { BaselineFile } from '../gate/baseline-file.ts';
import { readHistory } from '../history/history-file.ts';
import type { HistoryRecord } from '../history/history-record.ts';
import { readDeviceBaselines, readGpuResults } from '../report/load-runs.ts';
import type { ResultsFile } from '../results/results.ts';

/** One GPU model on the dashboard: its history (oldest first), its latest run and its baselines, each possibly missing. */
export interface SiteDevice {
  slug: string;
  name: string;
  history: HistoryRecord[];
  latest?: ResultsFile;
  /** Its baseline file (`<baselines>/<slug>.json`), for the history charts' SAME band. */
  baselines?: { file: string; data: BaselineFile };
}

/** Everything the page shows, and every file or line that was left out, with why. */
export interface SiteInput {
  /** By device name. */
  devices: SiteDevice[];
  /** The history files read (a folder with none is an empty history). */
  historyFiles: string[];
  /** Each history line or file left out: "history/nvidia-h200.jsonl:7: not a history record (...); skipped". */
  historyProblems: string[];
  /** Each results or baseline file left out: "h100.json: is not valid:\n  device.name: ...". */
  fileProblems: string[];
}

/**
 * The history files of `dir`: its `*.jsonl` files, by name. A folder that does not exist is a mistake (a
 * typo, the wrong folder), not an empty history, and so is a file given where a folder was expected.
 */
function historyFilesIn(dir: string): string[] {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new Error(`${dir}: no such history folder (expected a folder of <device-slug>.jsonl files)`);
  }
  if (!isDir) throw new Error(`${dir} is not a folder (expected a folder of <device-slug>.jsonl files)`);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => join(dir, f));
}

/** The folders and files the dashboard is built from. */
export interface SiteSources {
  historyDir: string;
  resultsFiles: string[];
  /** The baseline files' folder (the repository's baselines/); none, the charts have no SAME band. */
  baselinesDir?: string;
}

/**
 * Reads the history folder, the results files and each device's baseline file; every problem is collected,
 * none is thrown, except a history folder that does not exist and two results files of one GPU.
 */
export function loadSiteInput({ historyDir, resultsFiles, baselinesDir }: SiteSources): SiteInput {
  const historyFiles = historyFilesIn(historyDir);
  const historyProblems: string[] = [];
  const devices = new Map<string, SiteDevice>();
  const device = (slug: string, name: string): SiteDevice => {
    const d = devices.get(slug) ?? { slug, name, history: [] };
    devices.set(slug, d);
    return d;
  };
  for (const file of historyFiles) {
    let read: ReturnType<typeof readHistory>;
    try {
      read = readHistory(file);
    } catch (e) {
      historyProblems.push(`${(e as Error).message}; skipped`);
      continue;
    }
    historyProblems.push(...read.problems);
    // A history file holds one device's runs; its records say which, so a misnamed file still lands right.
    for (const { record } of read.records) {
      const d = device(record.device.slug, record.device.name);
      d.history.push(record);
      d.name = record.device.name;
    }
  }
  const { runs, leftOut } = readGpuResults(resultsFiles);
  const fileProblems = leftOut.map((u) => `${u.file} ${u.why}`);
  for (const run of runs) {
    const d = device(run.device.slug, run.device.name);
    d.latest = run;
    d.name = run.device.name;
  }
  if (baselinesDir !== undefined) {
    for (const d of devices.values()) {
      if (!isPlainSlug(d.slug)) continue;
      const { baselines, problem } = readDeviceBaselines(baselinesDir, d.slug);
      if (baselines) d.baselines = baselines;
      if (problem) fileProblems.push(`${problem}\n(the history charts of ${d.name} have no baseline band)`);
    }
  }
  return {
    devices: [...devices.values()].sort((a, b) => a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug)),
    historyFiles,
    historyProblems,
    fileProblems,
  };
}
