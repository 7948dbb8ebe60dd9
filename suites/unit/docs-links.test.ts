// The documentation's cross-references resolve: every relative Markdown link in README.md and docs/ names
// a file that exists and, after a '#', a heading of that file (GitHub's anchors); and every reference to
// a section from the code (`docs/NAME.md, "Section"` in a comment) names a heading of that document (the
// start of its title, as comments shorten it). The decode notes move sections often; a reader following a
// reference should land on what it cites.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, test } from 'vitest';
import { filesUnder } from '../support/repo-files.ts';

const root = join(import.meta.dirname, '..', '..');

/** The text outside fenced code blocks, line by line (fenced lines blank, so line numbers hold). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** GitHub's anchor of a heading's text: lower case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** A document's headings (their text) and anchors (a repeated anchor gets -1, -2, … as on GitHub). */
function headings(markdown: string): { titles: string[]; anchors: Set<string> } {
  const titles: string[] = [];
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m?.[1]) continue;
    const title = m[1];
    titles.push(title.replace(/`/g, ''));
    const base = slug(title);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return { titles, anchors };
}

type Docs = (path: string) => string | undefined;

/** The relative link targets of a Markdown file: inline links and reference definitions. */
function linkTargets(markdown: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  prose(markdown).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push({ line: i + 1, target: m[1] as string });
    const def = /^\s*\[[^\]]+\]:\s*(\S+)/.exec(line);
    if (def?.[1]) out.push({ line: i + 1, target: def[1] });
  });
  return out.filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with the links of `file` (a path from the root), one line each; none when all resolve. */
function brokenLinks(file: string, read: Docs): string[] {
  const text = read(file);
  if (text === undefined) return [`${file}: cannot be read`];
  const problems: string[] = [];
  for (const { line, target } of linkTargets(text)) {
    const [path = '', anchor] = target.split('#', 2);
    const to = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
    const body = read(to);
    if (body === undefined) {
      problems.push(`${file}:${line}: ${target}: no file ${to}`);
      continue;
    }
    if (anchor !== undefined && to.endsWith('.md') && !headings(body).anchors.has(anchor))
      problems.push(`${file}:${line}: ${target}: ${to} has no heading with the anchor #${anchor}`);
  }
  return problems;
}

/** The section references (`docs/NAME.md, "Section"`) in a source file's text: [document, section]. */
function sectionRefs(text: string): [string, string][] {
  // A comment may wrap the reference: join the lines, with the comment markers between them dropped.
  const flat = text.replace(/\n\s*(\/\/|#|\*)\s?/g, ' ');
  return [...flat.matchAll(/(docs\/[\w-]+\.md),\s+"([^"]+)"/g)].map((m) => [m[1] as string, m[2] as string]);
}

/** What is wrong with the section references in a source file's text. */
function brokenSectionRefs(file: string, text: string, read: Docs): string[] {
  const problems: string[] = [];
  for (const [doc, cited] of sectionRefs(text)) {
    const body = read(doc);
    if (body === undefined) {
      problems.push(`${file}: ${doc}: no such document`);
      continue;
    }
    const want = cited.replace(/`/g, '').replace(/\s+/g, ' ');
    if (!headings(body).titles.some((t) => t.startsWith(want)))
      problems.push(`${file}: ${doc}, "${cited}": no heading of ${doc} starts with it`);
  }
  return problems;
}

function readFrom(base: string): Docs {
  return (path) => {
    const full = join(base, path);
    try {
      return readFileSync(full, 'utf8');
    } catch {
      return existsSync(full) ? '' : undefined; // a folder exists but has no text
    }
  };
}

const markdown = ['README.md', ...filesUnder(root, 'docs').filter((f) => f.endsWith('.md'))];
const sources = ['cases', 'kernels', 'native', 'scripts', 'src', 'suites'].flatMap((d) =>
  filesUnder(root, d).filter(
    (f) => /\.(ts|cc|cu|cuh|h|py|sh)$/.test(f) && !f.includes('fixtures') && !f.endsWith('docs-links.test.ts'),
  ),
);

describe('documentation cross-references', () => {
  test('every relative link in README.md and docs/ names an existing file and heading', () => {
    expect(markdown.length).toBeGreaterThan(5);
    const links = markdown.flatMap((f) => linkTargets(readFileSync(join(root, f), 'utf8')));
    expect(links.filter(({ target }) => target.includes('#')).length).toBeGreaterThan(50);
    expect(markdown.flatMap((f) => brokenLinks(f, readFrom(root)))).toEqual([]);
  });

  test('every section a source file or a document cites (docs/NAME.md, "Section") is a heading there', () => {
    const texts = [...sources, ...markdown].map((f) => [f, readFileSync(join(root, f), 'utf8')] as const);
    expect(texts.flatMap(([, text]) => sectionRefs(text)).length).toBeGreaterThan(10);
    expect(texts.flatMap(([f, text]) => brokenSectionRefs(f, text, readFrom(root)))).toEqual([]);
  });

  test("anchors follow GitHub's rule: punctuation dropped, spaces to hyphens, repeats numbered", () => {
    const doc =
      "# A\n## The ring's copies as cp.async (bf16 and fp16)\n## Notes\n## Notes\n```\n# not a heading\n```\n";
    expect([...headings(doc).anchors]).toEqual(['a', 'the-rings-copies-as-cpasync-bf16-and-fp16', 'notes', 'notes-1']);
  });

  test('a missing file, a missing anchor and a stale section reference are each caught', () => {
    const files: Record<string, string> = {
      'docs/a.md': '# A\n## Kept\nSee [b](b.md#gone), [c](c.md), [here](#kept), [site](https://x.org/#y).\n',
      'docs/b.md': '# B\n## Present\n',
    };
    const read: Docs = (p) => files[p];
    expect(brokenLinks('docs/a.md', read)).toEqual([
      'docs/a.md:3: b.md#gone: docs/b.md has no heading with the anchor #gone',
      'docs/a.md:3: c.md: no file docs/c.md',
    ]);
    const code = '// see docs/b.md, "Present"\n// and docs/b.md, "Moved\n// away"\n';
    expect(brokenSectionRefs('x.cu', code, read)).toEqual([
      'x.cu: docs/b.md, "Moved away": no heading of docs/b.md starts with it',
    ]);
  });
});
