/**
 * JSON for files people review in diffs: two-space indentation, arrays of numbers on one line. Built from
 * the value's tree in one pass (no pattern over the text), so a string that looks like an array keeps its
 * bytes, and no string can make the formatting slow.
 */
export function formatJson(value: unknown): string {
  // JSON.stringify's own rules first (toJSON, undefined and functions dropped, NaN as null), then the layout.
  return `${layout(JSON.parse(JSON.stringify(value)), '')}\n`;
}

function layout(value: unknown, indent: string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((v) => typeof v === 'number')) return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    const inner = `${indent}  `;
    return `[\n${value.map((v) => inner + layout(v, inner)).join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const inner = `${indent}  `;
    return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${layout(v, inner)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}
