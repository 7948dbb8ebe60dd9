/**
 * `fusebench site`'s work: reads the history folder, the results files and the baselines, renders the page,
 * and writes <out>/index.html atomically. Returns what a caller reports: the file written and what was left out.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '../base/atomic-write.ts';
import { type ChartOptions, deviceCharts } from './site-charts.ts';
import { loadSiteInput, type SiteSources } from './site-input.ts';
import { renderSitePage } from './site-page.ts';

/** The one file of the site. */
export const SITE_PAGE = 'index.html';

/** What was built: the page's path, the GPUs on it, and every file or line left out (with why). */
interface SiteBuilt {
  file: string;
  devices: string[];
  /** Results and baseline files left out (unreadable, invalid, or an older run of a GPU): input errors. */
  fileProblems: string[];
  /** History lines (or files) skipped. */
  historyProblems: string[];
  /** Whether any history run was read (an empty history gives a page that says so). */
  hasHistory: boolean;
}

/** Builds the dashboard into `outDir`. */
export function buildSite(sources: SiteSources, outDir: string, options: ChartOptions = {}): SiteBuilt {
  const input = loadSiteInput(sources);
  const page = renderSitePage(input, (d) => deviceCharts(d, options), {
    historyDir: sources.historyDir,
    ...(options.repositoryUrl ? { repoUrl: options.repositoryUrl } : {}),
  });
  const file = join(outDir, SITE_PAGE);
  writeFileAtomic(file, page);
  return {
    file,
    devices: input.devices.map((d) => d.name),
    fileProblems: input.fileProblems,
    historyProblems: input.historyProblems,
    hasHistory: input.devices.some((d) => d.history.length > 0),
  };
}
