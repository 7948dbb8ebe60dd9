// Test helpers for rendered Markdown: the tables in it, checked cell by cell.

/** Every Markdown table in `md`: its header cells and each row's cells (pipes escaped as \| stay in a cell). */
export function markdownTables(md: string): { header: string[]; rows: string[][] }[] {
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\|/, '')
      .replace(/(?<!\\)\|$/, '')
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
  const tables: { header: string[]; rows: string[][] }[] = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const next = lines[i + 1] ?? '';
    if (!line.startsWith('|') || !/^\|(\s*:?-+:?\s*\|)+$/.test(next)) continue;
    const table = { header: cells(line), rows: [] as string[][] };
    i += 2;
    while (i < lines.length && (lines[i] ?? '').startsWith('|')) table.rows.push(cells(lines[i++] ?? ''));
    tables.push(table);
  }
  return tables;
}

/** Lines that start like a table row but belong to no well-formed table, and rows whose cell count is off. */
export function tableProblems(md: string): string[] {
  const problems: string[] = [];
  const tables = markdownTables(md);
  const tableLines = tables.reduce((n, t) => n + 2 + t.rows.length, 0);
  const pipeLines = md.split('\n').filter((l) => l.startsWith('|')).length;
  if (pipeLines !== tableLines) problems.push(`${pipeLines - tableLines} table-like lines outside any table`);
  for (const t of tables) {
    for (const r of t.rows) {
      if (r.length !== t.header.length)
        problems.push(`${r.length} cells, header has ${t.header.length}: ${r.join(' | ')}`);
    }
  }
  return problems;
}
