// The dashboard's escaping (src/site/html.ts): a string from a file becomes text in element content and in
// attribute values, JSON inside <script> can neither end the element nor change what JSON.parse gives back,
// and only http(s) URLs become links. The browser test (suites/e2e/site.test.ts) checks the same in Chromium.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { escapeHtml, Html, html, safeUrl, scriptJson } from '../../src/site/html.ts';
import { hostile } from '../support/hostile-results.ts';

const HOSTILE = [
  hostile('site'),
  '<img src=x onerror=alert(1)>',
  '"><svg onload=alert(1)>',
  "' onmouseover='alert(1)",
  '</script><script>alert(1)</script>',
  '<!-- <script>',
  '&lt;already escaped&gt; &amp; &#x3c;',
  'a\u2028b\u2029c',
  '\u202eevil-bidi',
];

/** What markup a string can carry: a tag, a comment, an attribute quote, or an entity it did not escape itself. */
const markup = (s: string) => /[<>"']|&(?!(?:amp|lt|gt|quot|#39);)/.exec(s)?.[0];

describe('escapeHtml and html', () => {
  test.each(HOSTILE)('%j is text, quotes included', (s) => {
    const out = escapeHtml(s);
    expect(markup(out)).toBeUndefined();
    // No bidirectional override or line separator survives either.
    expect(out).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u2028\u2029\n]/);
  });

  test.prop([fc.string({ unit: 'binary', maxLength: 300 })])('any string is escaped to text', (s) => {
    expect(markup(escapeHtml(s))).toBeUndefined();
  });

  test('interpolated strings are escaped, Html and numbers kept, lists joined', () => {
    const name = '<img src=x onerror=alert(1)>';
    const out = html`<p title="${name}">${name} ${3} ${new Html('<b>ours</b>')}${['<a>', new Html('<i>x</i>')]}</p>`;
    expect(out.html).toBe(
      '<p title="&lt;img src=x onerror=alert(1)&gt;">&lt;img src=x onerror=alert(1)&gt; 3 <b>ours</b>&lt;a&gt;<i>x</i></p>',
    );
  });

  test('a string from a file is cut to 2000 characters', () => {
    expect(escapeHtml(`${'x'.repeat(5000)}TAIL`)).toHaveLength(2000);
  });
});

describe('scriptJson', () => {
  test.each(HOSTILE)('%j cannot end or bend the <script> element, and parses back unchanged', (s) => {
    const value = { name: s, nested: [s, { [s]: s }] };
    const out = scriptJson(value).html;
    expect(out).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(out)).toEqual(value);
  });

  test.prop([fc.jsonValue()])('any JSON value parses back unchanged, with no < > & U+2028 U+2029 in it', (value) => {
    const out = scriptJson(value).html;
    expect(out).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(value)));
  });
});

describe('safeUrl', () => {
  test.each([
    ['https://github.com/o/r', 'https://github.com/o/r'],
    ['http://example.test/a b', 'http://example.test/a%20b'],
    ['javascript:alert(1)', undefined],
    ['data:text/html,<script>alert(1)</script>', undefined],
    ['//evil.example/x', undefined],
    ['not a url', undefined],
    [undefined, undefined],
  ])('%s → %s', (url, expected) => {
    expect(safeUrl(url)).toBe(expected);
  });
});
