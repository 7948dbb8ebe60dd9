/**
 * Device slugs as fusebench writes them (`nvidia-h200`, `cpu-amd-epyc`): the name of a device's baseline
 * and history files. One read from a file (a results file, a history record) is checked before it names a
 * file, so that it can never be a path.
 */

/** Lower-case letters, digits, dots and dashes, at most 200 (never a path). */
const SLUG = /^[a-z0-9][a-z0-9.-]{0,199}$/;

/** Whether a device slug is a plain name, safe as a file or folder name. */
export function isPlainSlug(slug: string): boolean {
  return SLUG.test(slug) && !slug.includes('..');
}
