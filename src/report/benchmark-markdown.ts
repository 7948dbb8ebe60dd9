/**
 * BENCHMARK_RESULTS.md: hardware configuration, one table per case and shape in the style of the
 * V100 report, a summary, and the command that reproduces it. A pure function of the results.
 */
import type { CaseResult, ResultsFile } from '../results.ts';
import { gbs, markdownTable, mb, ms, pct, sci, speedup, times } from './format.ts';

function caseSection(c: CaseResult): string {
  const title = `### ${c.title} — ${c.shape.label} (${c.shape.description})`;
  if (c.status !== 'measured' || !c.timing || !c.speedup) {
    return `${title}\n\n**${c.status.toUpperCase()}**: ${c.reason ?? 'no reason recorded'}\n`;
  }
  const t = c.timing;
  const u = c.traffic.unfused;
  const f = c.traffic.fused;
  const nu = c.numerics;
  const rows = [
    ['**Median time**', ms(t.unfused.median), ms(t.fused.median), `**${speedup(c.speedup)}** (95% CI)`],
    [
      'Time spread (p10–p90)',
      `${ms(t.unfused.p10)} – ${ms(t.unfused.p90)}`,
      `${ms(t.fused.p10)} – ${ms(t.fused.p90)}`,
      '',
    ],
    [
      'Memory traffic',
      mb(u.bytes),
      mb(f.bytes),
      `${pct(1 - f.bytes / u.bytes)} saved (theoretical ${times(c.traffic.theoreticalSpeedup)})`,
    ],
    ['Kernel launches', String(u.launches), String(f.launches), `${u.launches - f.launches} fewer`],
    [
      'Achieved bandwidth',
      gbs(u.bytes / (t.unfused.median / 1e3) / 1e9),
      `${gbs(c.fusedGBs ?? 0)} (${(c.fusedPctOfCopy ?? 0).toFixed(0)}% of copy)`,
      `efficiency ${pct(c.efficiency ?? 0)} of theoretical`,
    ],
    [
      'Max error vs float64',
      nu ? `${sci(nu.unfused.maxAbsError)} abs, ${sci(nu.unfused.maxRelError)} rel` : '',
      nu ? `${sci(nu.fused.maxAbsError)} abs, ${sci(nu.fused.maxRelError)} rel` : '',
      nu ? `tolerance atol ${nu.tolerance.atol}, rtol ${nu.tolerance.rtol} ✓` : '',
    ],
    ...Object.entries(nu?.extra ?? {}).map(([k, v]) => [k, '', sci(v), '']),
    [
      'Samples',
      `${t.unfused.n} pairs kept of ${t.pairsTaken}`,
      `stop: ${t.stopReason}`,
      `${(t.wallMs / 1000).toFixed(1)} s of ${(t.budgetMs / 1000).toFixed(1)} s budget`,
    ],
  ];
  return `${title}\n\n${markdownTable(['Metric', `Unfused (${u.launches} kernels)`, `Fused (${f.launches} kernel${f.launches === 1 ? '' : 's'})`, 'Improvement'], rows)}\n`;
}

function summaryTable(results: ResultsFile): string {
  const rows = results.cases
    .filter((c) => c.status === 'measured' && c.timing && c.speedup)
    .map((c) => [
      c.title,
      c.shape.label,
      speedup(c.speedup as NonNullable<CaseResult['speedup']>),
      ms((c.timing?.unfused.median ?? 0) - (c.timing?.fused.median ?? 0)),
      `${pct(c.efficiency ?? 0)} of ${times(c.traffic.theoreticalSpeedup)}`,
      `${(c.fusedPctOfCopy ?? 0).toFixed(0)}%`,
    ]);
  return markdownTable(
    [
      'Case',
      'Shape',
      'Speedup [95% CI]',
      'Absolute time saved',
      'Efficiency vs theoretical',
      'Fused % of copy bandwidth',
    ],
    rows,
  );
}

/** Renders the whole BENCHMARK_RESULTS.md. */
export function renderBenchmarkMarkdown(results: ResultsFile): string {
  const d = results.device;
  const hw = [
    ...Object.entries(d.details).map(([k, v]) => `- **${k}:** ${v}`),
    `- **Measured copy bandwidth:** ${gbs(d.copyBandwidthGBs)} (device-to-device, bytes read + written)`,
  ].join('\n');
  const s = results.settings;
  const notRun = results.cases.filter((c) => c.status !== 'measured');
  return [
    '# fusebench results',
    '',
    `Produced by \`${results.command}\` on ${results.createdAt.slice(0, 10)} with fusebench ${results.tool.version}.`,
    `Backend: **${d.backend}** (${results.backendReason}).`,
    '',
    '## Hardware configuration',
    '',
    hw,
    '',
    '## Method',
    '',
    `Each case runs its unfused twin and its fused kernel on the same seeded random inputs (seed ${s.seed}); both are checked ` +
      'against a float64 reference with every output poisoned with NaN first. Timing: device time of one call per sample ' +
      `(${d.backend === 'cuda' ? 'CUDA events' : 'a steady clock'}), the last-level cache flushed before every sample, ` +
      `warm-up excluded, unfused and fused samples interleaved in pairs. At least ${s.minPairs} pairs, then more until the ` +
      `speedup's 95% interval half-width is at most ${pct(s.targetHalfWidth)} or the ${(s.budgetMs / 1000).toFixed(1)} s budget per shape is spent. ` +
      'Speedup = median(unfused) / median(fused), with a seeded paired-bootstrap 95% interval.',
    '',
    '## Results',
    '',
    ...results.cases.map(caseSection),
    '## Summary',
    '',
    summaryTable(results),
    '',
    notRun.length > 0
      ? `Not measured: ${notRun.map((c) => `${c.key} (${c.status}: ${c.reason ?? ''})`).join('; ')}.\n`
      : '',
    '## Reproduce',
    '',
    '```bash',
    'npm ci',
    results.command,
    '```',
    '',
  ].join('\n');
}
