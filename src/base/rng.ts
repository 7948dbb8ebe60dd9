/** Seeded random numbers: the same seed gives the same inputs and the same bootstrap intervals. */

/** A uniform [0, 1) generator (mulberry32), deterministic for a 32-bit seed. */
export function uniform(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal deviates from a uniform source (Box–Muller). */
export function normal(rand: () => number): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const s = spare;
      spare = undefined;
      return s;
    }
    let u = 0;
    while (u === 0) u = rand();
    const v = rand();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

/** The seed of the k-th independent input drawn from one case seed (golden-ratio spacing). */
export function seedStream(seed: number, k: number): number {
  return (seed + k * 0x9e3779b9) >>> 0;
}

/** A fresh seed for a run (printed with results, so a failure can be replayed with --seed). */
export function freshSeed(): number {
  return (Date.now() ^ (Math.random() * 0x100000000)) >>> 0;
}
