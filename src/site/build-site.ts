/**
 * `fusebench site`'s work: reads the history folder and the results files, renders the page, and writes
 * <out>/index.html atomically. Returns what a caller reports: the file written and what was left out.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '../base/atomic-write.ts';
import { deviceCharts } from './site-charts.ts';
import { loadSiteInput } from './site-input.ts';
import { type PageOptions, renderSitePage } from './site-page.ts';

/** The one file of the site. */
export const SITE_PAGE = 'index.html';

/** What was built: the page's path, the GPUs on it, and every file or line left out (with why). */
interface SiteBuilt {
  file: string;
  devices: string[];
  problems: string[];
  /** How many results files were left out (unreadable, invalid, or a second run of a GPU). */
  resultsLeftOut: number;
  /** Whether any history run was read (an empty history gives a page that says so). */
  hasHistory: boolean;
}

/** Builds the dashboard into `outDir` from the history folder and the latest results files. */
export function buildSite(
  historyDir: string,
  resultsFiles: string[],
  outDir: string,
  options: Omit<PageOptions, 'historyDir'> = {},
): SiteBuilt {
  const input = loadSiteInput(historyDir, resultsFiles);
  const page = renderSitePage(input, deviceCharts, { ...options, historyDir });
  const file = join(outDir, SITE_PAGE);
  writeFileAtomic(file, page);
  return {
    file,
    devices: input.devices.map((d) => d.name),
    problems: [...input.resultsProblems, ...input.historyProblems],
    resultsLeftOut: input.resultsProblems.length,
    hasHistory: input.devices.some((d) => d.history.length > 0),
  };
}
