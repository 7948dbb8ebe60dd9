/** JSON for files people review in diffs: two-space indentation, arrays of numbers on one line. */
export function formatJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2).replace(
    /\[\s*(-?[\d.e+-]+(?:,\s*-?[\d.e+-]+)*)\s*\]/g,
    (_, inner: string) => `[${inner.split(/,\s*/).join(', ')}]`,
  );
  return `${text}\n`;
}
