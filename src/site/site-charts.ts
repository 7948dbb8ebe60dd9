/**
 * The charts of one GPU on the dashboard, from the chart modules the Markdown report draws too
 * (src/report/charts/): the roofline per precision of its latest run, and per case and precision one
 * history chart per shape (speedup and fused time over commits, over the baseline's SAME band).
 */
import { type HistoryChartOptions, historyCharts, historySpec } from '../report/charts/history-chart.ts';
import { rooflinePanels, rooflineSpec } from '../report/charts/roofline.ts';
import { entryKey } from '../results/results.ts';
import type { SiteDevice } from './site-input.ts';
import type { DeviceCharts } from './site-page.ts';

/** What the charts take beyond a device's own data: the window of commits, and the repository commits link to. */
export type ChartOptions = Pick<HistoryChartOptions, 'last' | 'repositoryUrl'>;

/** The roofline panels of the device's latest run, and its history charts grouped by case and precision. */
export function deviceCharts(device: SiteDevice, options: ChartOptions): DeviceCharts {
  const roofline = device.latest
    ? rooflinePanels([device.latest]).map((panel) => ({
        title: `Roofline of ${panel.device.name}, ${panel.dtype}`,
        spec: rooflineSpec(panel),
        data: { dtype: panel.dtype },
      }))
    : [];
  const groups = new Map<string, DeviceCharts['history'][number]>();
  for (const chart of historyCharts(device.history, {
    ...(options.last !== undefined ? { last: options.last } : {}),
    ...(options.repositoryUrl ? { repositoryUrl: options.repositoryUrl } : {}),
    ...(device.baselines ? { baselines: device.baselines } : {}),
  })) {
    const id = `${chart.case}\u0000${chart.dtype}`;
    const group = groups.get(id) ?? { title: `${chart.case} (${chart.dtype})`, charts: [] };
    group.charts.push({
      title: `History of ${chart.case} ${chart.shape} ${chart.dtype} on ${chart.device.name}`,
      spec: historySpec(chart),
      data: { key: entryKey(chart.case, chart.shape, chart.dtype) },
    });
    groups.set(id, group);
  }
  return { roofline, history: [...groups.values()] };
}
