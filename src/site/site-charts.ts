/**
 * The charts of one GPU on the dashboard. PLACEHOLDER until src/report/charts/ (roofline.ts,
 * history-chart.ts) lands from branch report-28: a plain speedup line per series.
 */
import { caseHistories } from '../history/history-series.ts';
import type { SiteDevice } from './site-input.ts';
import type { DeviceCharts } from './site-page.ts';

/** How many commits the dashboard's history charts show. */
const SITE_HISTORY_COMMITS = 100;

export function deviceCharts(device: SiteDevice): DeviceCharts {
  const history = caseHistories(device.history, SITE_HISTORY_COMMITS).map((h) => ({
    title: `${h.case} (${h.dtype})`,
    charts: h.series.map((s) => ({
      title: `${h.case} ${s.shape} ${h.dtype}`,
      data: { key: `${h.case}/${s.shape}/${h.dtype}` },
      spec: {
        width: 360,
        height: 160,
        data: {
          values: s.points.map((p) => ({ commit: h.commits[p.index], date: h.dates[p.index], speedup: p.estimate })),
        },
        encoding: {
          x: { field: 'commit', type: 'ordinal' as const, sort: null },
          y: { field: 'speedup', type: 'quantitative' as const },
          tooltip: [{ field: 'commit' }, { field: 'date' }, { field: 'speedup' }],
        },
        layer: [{ mark: 'line' as const }, { name: 'speedup_points', mark: 'point' as const }],
      },
    })),
  }));
  return { roofline: [], history };
}
