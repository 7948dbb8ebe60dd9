// The repository's files, for tests that check rules over its source and documents.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file under `dir` (a path from `root`), as paths from `root`. */
export function filesUnder(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)));
}
