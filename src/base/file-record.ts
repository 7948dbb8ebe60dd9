/**
 * Objects keyed by strings from a file (baseline entries, history cases). zod's `z.record` copies the
 * keys into a plain `{}`, where a key `__proto__` is taken by the prototype setter and silently lost
 * (and `constructor`, `toString` would read as inherited members). `fileRecord` validates each value
 * with the given schema and returns a null-prototype object, so every key of the file is kept, as data.
 */
import { z } from 'zod';

/** A JSON object of `value`s, parsed into a null-prototype object that keeps every key (`__proto__` too). */
export function fileRecord<T extends z.ZodType>(value: T) {
  return z.unknown().transform((input, ctx): Record<string, z.output<T>> => {
    const out: Record<string, z.output<T>> = Object.create(null);
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      ctx.issues.push({ code: 'custom', input, message: 'expected an object of entries' });
      return out;
    }
    for (const [key, v] of Object.entries(input)) {
      const parsed = value.safeParse(v);
      if (parsed.success) out[key] = parsed.data;
      else for (const issue of parsed.error.issues) ctx.issues.push({ ...issue, path: [key, ...issue.path] } as never);
    }
    return out;
  });
}

/**
 * For a refinement across fields (a summary against its samples, a ratio of two arrays): it runs only once
 * every field it reads has passed its own schema. zod would otherwise run it on a value with issues (an
 * empty sample array, say) and the refinement would throw instead of the field being named.
 */
export const ONCE_FIELDS_VALID = { when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0 };
