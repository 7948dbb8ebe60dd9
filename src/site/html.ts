/**
 * HTML by construction, as src/report/escape.ts is for Markdown. Every string that reaches the dashboard
 * may come from a history or results file (on the perf-history branch, written by whatever code ran), so
 * the page is built only with `html`, which escapes every interpolated string and keeps only `Html`
 * values, the markup fusebench writes itself. JSON embedded in a <script> goes through `scriptJson`.
 */
import { NAME_CHARS, NOTE_CHARS, plain } from '../report/escape.ts';

/** Markup that fusebench wrote itself (or text already escaped): `html` keeps it as it is. */
export class Html {
  readonly html: string;
  constructor(markup: string) {
    this.html = markup;
  }
  toString(): string {
    return this.html;
  }
}

/** What `html` may interpolate: a string from a file (escaped), a number (printed), or markup (kept), or a list of them. */
type HtmlValue = string | number | Html | readonly HtmlValue[];

/** The most characters a string from a file shows in the page (a device name of 10,000 characters is cut). */
const TEXT_CHARS = 2000;

/**
 * Text for HTML element content or a double-quoted attribute value: one line (controls, newlines and the
 * bidirectional overrides of "Trojan Source" become spaces, as in Markdown), cut to `max`, and the five
 * characters HTML gives a meaning (`& < > " '`) written as entities, so no tag, attribute or entity survives.
 */
export function escapeHtml(s: string, max = TEXT_CHARS): string {
  return plain(s, max)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A name or label from a file (device, case title, shape): escaped and cut to NAME_CHARS, as in Markdown. */
export function name(s: string): Html {
  return new Html(escapeHtml(s, NAME_CHARS));
}

/** Free text from a file (a reason): escaped and cut to NOTE_CHARS, as in Markdown. */
export function note(s: string): Html {
  return new Html(escapeHtml(s, NOTE_CHARS));
}

function render(v: HtmlValue): string {
  if (v instanceof Html) return v.html;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return escapeHtml(v);
  return v.map(render).join('');
}

/** Template tag: the literal parts are ours; every interpolated string is escaped, `Html` kept, lists joined. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  return new Html(
    strings.reduce((acc, part, i) => acc + part + (i < values.length ? render(values[i] ?? '') : ''), ''),
  );
}

/**
 * JSON to embed in a `<script type="application/json">` element: `<`, `>` and `&` as \u escapes (so no
 * `</script>` or `<!--` can end or bend the element), U+2028 and U+2029 too (line terminators to older
 * JavaScript parsers). JSON.parse of the element's text gives back exactly `value`.
 */
export function scriptJson(value: unknown): Html {
  return new Html(
    JSON.stringify(value).replace(
      /[<>&\u2028\u2029]/g,
      (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
    ),
  );
}

/** An http(s) URL as an attribute value, or undefined for any other scheme (javascript:, data:, a relative path). */
export function safeUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
