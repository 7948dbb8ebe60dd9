/**
 * The name a mistyped one most likely meant, for "did you mean" in an error: the closest of `names` by edit
 * distance (insertions, deletions, substitutions, and two neighbours swapped), if it is close enough to be
 * a typo (at most a third of the typed name's length, and at most 3); undefined otherwise.
 */
export function closestName(typed: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.floor(typed.length / 3));
  for (const name of names) {
    const d = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (d <= bestDistance && (best === undefined || d < editDistance(typed.toLowerCase(), best.toLowerCase()))) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

/** The optimal-string-alignment distance between `a` and `b`. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}
