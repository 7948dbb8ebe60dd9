// Escaping by construction: the helpers themselves, then every renderer fed a results file whose every
// text field is hostile (HTML, links, images, mentions, fences, table breakers, 10,000-character fields).

import { describe, expect, test } from 'vitest';
import { collectAnnotations } from '../../src/github/actions-report.ts';
import { renderBenchmarkMarkdown } from '../../src/report/benchmark-markdown.ts';
import {
  codeBlock,
  codeSpan,
  htmlText,
  link,
  markdownTable,
  md,
  mermaidLabel,
  NAME_CHARS,
  NOTE_CHARS,
  plain,
  text,
  trusted,
} from '../../src/report/escape.ts';
import { renderJobSummary } from '../../src/report/job-summary.ts';
import { renderPrComment } from '../../src/report/pr-comment.ts';
import { codeBlocks, hostile, hostileResults, injections, TAIL } from '../support/hostile-results.ts';
import { markdownTables, tableProblems } from '../support/markdown-check.ts';

const ZWSP = '\u200b';

describe('htmlText: text inside our raw HTML (a <summary> line), where Markdown escapes would show', () => {
  test.each([
    [
      'an HTML tag and its attribute',
      '<img src=x onerror="alert(1)">',
      '&lt;img src=x onerror=&quot;alert&#x28;1&#x29;&quot;&gt;',
    ],
    ['a closing summary', '</summary><script>', '&lt;/summary&gt;&lt;script&gt;'],
    ['an entity', '&lt; &#x41;', `&amp;lt; &amp;#${ZWSP}x41;`],
    ['a link and an image', '![x](https://e.example/)', `&#x21;&#x5b;x&#x5d;&#x28;https:${ZWSP}//e.example/&#x29;`],
    ['a mention and a reference', "@everyone #1 it's", `@${ZWSP}everyone #${ZWSP}1 it&#x27;s`],
    ['emphasis, code and a backslash', '*a* _b_ `c` \\', '&#x2a;a&#x2a; &#x5f;b&#x5f; &#x60;c&#x60; &#x5c;'],
    ['newlines and a bidirectional override', 'a\n<b>\u202ec', 'a &lt;b&gt; c'],
  ])('escapes %s', (_, input, expected) => {
    expect(htmlText(input).markdown).toBe(expected);
  });

  test('a hostile string leaves no tag, link, live mention or reference', () => {
    const out = htmlText(hostile('summary'), 10_000).markdown;
    expect(out).not.toMatch(/[<>"'`[\]()]/);
    expect(injections(out)).toEqual([]);
  });
});

describe('text: inline Markdown and HTML-safe', () => {
  test.each([
    ['an HTML tag', '<img src=x onerror=alert(1)>', '&lt;img src=x onerror=alert\\(1\\)&gt;'],
    ['an open details element', '<details open>', '&lt;details open&gt;'],
    ['an image', '![x](https://e.example/p.png)', `\\!\\[x\\]\\(https:${ZWSP}//e.example/p.png\\)`],
    ['a link', '[x](https://e.example/)', `\\[x\\]\\(https:${ZWSP}//e.example/\\)`],
    ['a bare URL', 'see https://evil.example/login', `see https:${ZWSP}//evil.example/login`],
    ['a bare http URL in capitals', 'HTTP://evil.example', `HTTP:${ZWSP}//evil.example`],
    ['a www address', 'go to www.evil.example now', `go to www.${ZWSP}evil.example now`],
    ['another scheme', 'ftp://evil.example', `ftp:${ZWSP}//evil.example`],
    ['a mailto address', 'mailto:a@evil.example', `mailto:${ZWSP}a@${ZWSP}evil.example`],
    ['a mention', '@everyone', `@${ZWSP}everyone`],
    ['a team mention', '@org/team', `@${ZWSP}org/team`],
    ['an issue reference', 'fixes #1', `fixes #${ZWSP}1`],
    ['a heading', '# title', `#${ZWSP} title`],
    ['a code span', '`x`', '\\`x\\`'],
    ['a table cell break', 'a | b', 'a \\| b'],
    ['emphasis, strikethrough and math', '*a* _b_ ~~c~~ $d$', '\\*a\\* \\_b\\_ \\~\\~c\\~\\~ \\$d\\$'],
    ['an entity', '&lt; &amp;', '&amp;lt; &amp;amp;'],
    ['a backslash', 'a\\b', 'a\\\\b'],
    ['newlines and tabs', 'a\n\n b\r\n\tc', 'a b c'],
    ['a bidirectional override', 'abc\u202edef', 'abc def'],
  ])('escapes %s', (_, input, expected) => {
    expect(text(input).markdown).toBe(expected);
  });

  test('cuts to the limit before escaping, so an entity is never cut in half', () => {
    expect(text('<'.repeat(200), 10).markdown).toBe(`${'&lt;'.repeat(9)}…`);
    expect(text('x'.repeat(1000)).markdown).toHaveLength(NAME_CHARS);
    expect(text('x'.repeat(1000), NOTE_CHARS).markdown).toHaveLength(NOTE_CHARS);
    expect(text('short').markdown).toBe('short');
  });

  test('plain text for annotations is one line, without controls, cut', () => {
    expect(plain('a\nb\u0007c\u202ed', 100)).toBe('a b c d');
    expect(plain('y'.repeat(300), 50)).toBe(`${'y'.repeat(49)}…`);
  });
});

describe('md, markdownTable and trusted Markdown', () => {
  test('md escapes interpolated strings, prints numbers and keeps trusted Markdown', () => {
    expect(md`**${'<b>'}** ${1.5} ${trusted('**ok**')}`.markdown).toBe('**&lt;b&gt;** 1.5 **ok**');
  });

  test('a table escapes every string cell and keeps its column count, even for trusted cells with pipes', () => {
    const table = markdownTable(
      [trusted('A'), 'B [x]', 'C'],
      [
        ['a | b', 2, trusted('**bold** | pipe\nline')],
        ['<img src=x>', trusted('1.91x [1.90, 1.92]')],
      ],
    );
    expect(tableProblems(table)).toEqual([]);
    expect(markdownTables(table)[0]).toEqual({
      header: ['A', 'B \\[x\\]', 'C'],
      rows: [
        ['a \\| b', '2', '**bold** \\| pipe line'],
        ['&lt;img src=x&gt;', '1.91x [1.90, 1.92]', ''],
      ],
    });
  });
});

describe('code spans and blocks', () => {
  test('a code span’s fence is longer than any backtick run inside', () => {
    expect(codeSpan('npm run perf -- ```x``').markdown).toBe('```` npm run perf -- ```x`` ````');
    expect(codeSpan('a ``` b').markdown).toBe('````a ``` b````');
    expect(codeSpan('`x`').markdown).toBe('`` `x` ``');
  });

  test('a code block cannot be closed by its content', () => {
    const block = codeBlock('npm ci\n```\n# injected\n````', 'bash').markdown;
    expect(block.split('\n')[0]).toBe('`````bash');
    expect(codeBlocks(`${block}\nafter`)).toEqual([
      { open: '`````bash', closed: true, body: ['npm ci', '```', '# injected', '````'] },
    ]);
  });
});

describe('Mermaid labels and links', () => {
  test('a Mermaid label keeps only plain characters', () => {
    expect(mermaidLabel('"a" `b` <c> #x; d')).toBe('a b c x d');
    expect(mermaidLabel('GELU + scale 32x512x768 (fp32)')).toBe('GELU + scale 32x512x768 (fp32)');
  });

  test('a link is made only to http(s), with parentheses encoded and the label escaped', () => {
    expect(link('run', 'https://github.com/o/r/actions/runs/1').markdown).toBe(
      '[run](https://github.com/o/r/actions/runs/1)',
    );
    expect(link('run', 'https://e.example/a)b').markdown).toBe('[run](https://e.example/a%29b)');
    expect(link('run', 'javascript:alert(1)').markdown).toBe('run');
    expect(link('[x]', undefined).markdown).toBe('\\[x\\]');
  });
});

describe('every renderer, given hostile strings in every text field of a results file', () => {
  const a = hostileResults('a');
  const b = hostileResults('b');
  const runUrl = 'https://github.com/o/r/actions/runs/1';
  const outputs: [string, string, string | undefined][] = [
    [
      'the PR comment',
      renderPrComment([{ results: a, base: { results: b } }], { runUrl }),
      `[Workflow run](${runUrl})`,
    ],
    ['the job summary', renderJobSummary(a), undefined],
    ['BENCHMARK_RESULTS.md', renderBenchmarkMarkdown([a]), undefined],
    ['the merged BENCHMARK_RESULTS.md', renderBenchmarkMarkdown([a, b]), undefined],
  ];

  test.each(outputs)('%s carries no HTML, link, image, mention, heading or long field from the file', (_, out, ok) => {
    expect(out).toContain('img src=x'); // the hostile text is there, as text
    expect(injections(out, ok)).toEqual([]);
  });

  test.each(outputs)('%s keeps every table row at its header’s column count', (_, out) => {
    expect(markdownTables(out).length).toBeGreaterThan(0);
    expect(tableProblems(out)).toEqual([]);
  });

  test.each(outputs)('%s closes every code block it opens', (_, out) => {
    expect(codeBlocks(out).every((b) => b.closed)).toBe(true);
  });

  test('annotations are single lines of bounded length, with no file outside the repository', () => {
    const found = collectAnnotations(a);
    expect(found.length).toBeGreaterThan(0);
    for (const x of found) {
      expect(x.message).not.toMatch(/[\n\r]/);
      expect(x.message).not.toContain(TAIL);
      expect(x.message.length).toBeLessThanOrEqual(2 * NOTE_CHARS);
      expect(x.properties.title).not.toMatch(/[\n\r]/);
      expect(x.properties.title?.length).toBeLessThanOrEqual(2 * NAME_CHARS);
      expect(x.properties.file).toBeUndefined();
    }
  });

  test('the hostile strings are as hostile as they look: unescaped they inject', () => {
    expect(injections(hostile('x')).length).toBeGreaterThan(3);
  });
});
