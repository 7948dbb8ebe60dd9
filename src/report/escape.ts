/**
 * Escaping by construction. Every string that reaches Markdown (the PR comment, the job summary,
 * BENCHMARK_RESULTS.md), a Mermaid chart or an Actions annotation may come from a results or baseline
 * file, and on a pull request that file was written by the pull request's code. Renderers therefore
 * never paste a string: they pass values to `md`, `markdownTable` and the helpers here,
 * which escape every `string` and let through only numbers and `Markdown` values, the Markdown that
 * fusebench writes itself (bold verdicts, our number formats), marked with `trusted`. A renderer that
 * forgets a field gets it escaped, never raw.
 */

/** Names and labels (device names, case titles, shape labels) are cut to this many characters. */
export const NAME_CHARS = 120;
/**
 * Free text (gate messages, reasons, notes) is cut to this many characters. Real gate messages with
 * both decisions and the update hint reach about 380, so this keeps them whole.
 */
export const NOTE_CHARS = 500;
/** Commands shown in code spans and code blocks are cut to this many characters. */
const COMMAND_CHARS = 1000;

/** Markdown that fusebench wrote itself, or text already escaped: renderers keep it as it is. */
export class Markdown {
  readonly markdown: string;
  constructor(markdown: string) {
    this.markdown = markdown;
  }
  toString(): string {
    return this.markdown;
  }
}

/** What a renderer may interpolate: a string from a file (escaped), a number (printed) or Markdown (kept). */
export type Inline = string | number | Markdown;

/** Marks Markdown written by fusebench (never text from a file) so that renderers keep it. */
export function trusted(markdown: string): Markdown {
  return new Markdown(markdown);
}

/** Marks several cells written by fusebench (headers, our number formats) as trusted. */
export function ours(cells: string[]): Markdown[] {
  return cells.map(trusted);
}

// C0/C1 controls, line and paragraph separators, and the bidirectional overrides that can make text
// read differently from what it is ("Trojan Source"): all become spaces.
const CONTROLS = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f]/gu;
// The same, less newline and tab, for code blocks.
const BLOCK_CONTROLS = /(?![\n\t])[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f]/gu;
const ZWSP = '\u200b';
// What GFM's extended autolinks start with (https://github.github.com/gfm/#autolinks-extension-): a
// scheme and colon before `//` (http, https, ftp, ...), `www.`, and `mailto:` / `xmpp:`. The zero-width
// space goes after the match, so `https:\u200b//x.example` and `www.\u200bx.example` stay plain text.
const AUTOLINKS = /[a-z][a-z0-9+.-]*:(?=\/\/)|\bwww\.|\b(?:mailto|xmpp):/gi;

/** One line of plain text: controls and newlines become spaces, runs of spaces collapse, cut to `max` with an ellipsis. */
export function plain(s: string, max = NAME_CHARS): string {
  const one = s.replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** A shape as the console names it, in plain text: "gelu_scale 1K bf16". */
export function shapeName(c: { case: string; shape: { label: string }; dtype: string }): string {
  return `${plain(c.case)} ${plain(c.shape.label)} ${plain(c.dtype)}`;
}

/**
 * Text for inline Markdown and HTML: one line, cut to `max`, with every character that Markdown or
 * HTML gives a meaning escaped. `&`, `<`, `>` become entities (no tag, comment or entity survives);
 * `\ ` `` ` `` `* _ [ ] ( ) ! | ~ $` get a backslash (no emphasis, code, link, image, table cell,
 * strikethrough or math). `@` and `#` get a zero-width space after them: GitHub finds mentions
 * (`@everyone`, `@org/team`) and issue references (`#12`) in the rendered text, after escapes are gone,
 * so only breaking the word stops them (and a `#` can then never open a heading either). For the same
 * reason a bare URL gets a zero-width space inside what GitHub's autolinker looks for (`https:`, `www.`,
 * `mailto:`, any `scheme:` before `//`), so no text from a file becomes a link under the bot's name.
 */
export function text(s: string, max = NAME_CHARS): Markdown {
  const escaped = plain(s, max)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]()!|~$]/g, '\\$&')
    .replace(/[@#]/g, `$&${ZWSP}`)
    .replace(AUTOLINKS, `$&${ZWSP}`);
  return new Markdown(escaped);
}

/**
 * Text inside raw HTML that GitHub shows without reading it as Markdown (a `<summary>` line, where a
 * backslash escape would show as a backslash): one line, cut to `max`, `& < > " '` and Markdown's own
 * characters as entities (no tag, attribute, entity, link or emphasis survives), and a zero-width space
 * after `@`, `#` and autolink starts, as in `text` (GitHub finds mentions and references in HTML's text too).
 */
export function htmlText(s: string, max = NAME_CHARS): Markdown {
  // The zero-width spaces first, so that no `#` of an entity written below gets one.
  const escaped = plain(s, max)
    .replace(/[@#]/g, `$&${ZWSP}`)
    .replace(AUTOLINKS, `$&${ZWSP}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // The quote and Markdown's own characters as hexadecimal entities: they read the same and mean nothing
    // to any parser (and `&#x` is followed by no digit that could read as an issue reference).
    .replace(/['\\`*_[\]()!|~$]/g, (c) => `&#x${c.charCodeAt(0).toString(16)};`);
  return new Markdown(escaped);
}

/** A name or label (device, case title, shape): escaped and cut to NAME_CHARS. */
export function name(s: string): Markdown {
  return text(s, NAME_CHARS);
}

/** Free text (gate message, reason, note): escaped and cut to NOTE_CHARS. */
export function note(s: string): Markdown {
  return text(s, NOTE_CHARS);
}

/** A value as inline Markdown: strings escaped (cut to NAME_CHARS), numbers printed, Markdown kept. */
function inline(v: Inline): string {
  if (v instanceof Markdown) return v.markdown;
  if (typeof v === 'number') return String(v);
  return name(v).markdown;
}

/** Template tag: the literal parts are ours; every interpolated string is escaped (see `inline`). */
export function md(strings: TemplateStringsArray, ...values: Inline[]): Markdown {
  return new Markdown(
    strings.reduce((acc, part, i) => acc + part + (i < values.length ? inline(values[i] as Inline) : ''), ''),
  );
}

/** Joins Markdown values (strings among them escaped). */
export function join(values: Inline[], separator: string): Markdown {
  return new Markdown(values.map(inline).join(separator));
}

const longestBacktickRun = (s: string) => Math.max(0, ...(s.match(/`+/g) ?? []).map((r) => r.length));

/** An inline code span whose fence is longer than any backtick run inside, so the text cannot close it. */
export function codeSpan(s: string, max = COMMAND_CHARS): Markdown {
  const one = plain(s, max);
  const fence = '`'.repeat(longestBacktickRun(one) + 1);
  // A space on each side when the text starts or ends with a backtick (CommonMark strips one of each).
  const pad = one.startsWith('`') || one.endsWith('`') ? ' ' : '';
  return new Markdown(`${fence}${pad}${one}${pad}${fence}`);
}

/**
 * A fenced code block whose fence is longer than any backtick run inside (at least three), so no line
 * of the content can close it; controls other than newlines and tabs become spaces.
 */
export function codeBlock(content: string, info = '', max = COMMAND_CHARS): Markdown {
  const body = content.replace(/\r\n?/g, '\n').replace(BLOCK_CONTROLS, ' ');
  const cut = body.length <= max ? body : `${body.slice(0, max - 1)}…`;
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(cut) + 1));
  return new Markdown(`${fence}${plain(info, 20)}\n${cut}\n${fence}`);
}

/**
 * A label inside a double-quoted Mermaid string: letters, digits, spaces and `+-x×/.,:%()'=_` only (no
 * quote, backtick, `#` entity, `<` or `;` survives), cut to `max`.
 */
export function mermaidLabel(s: string, max = NAME_CHARS): string {
  return plain(s.replace(/[^\p{L}\p{N} +\-×/.,:%()'=_]/gu, ' '), max);
}

/** A link to an http(s) URL; any other URL (or none) gives the label alone. */
export function link(label: Inline, url: string | undefined): Markdown {
  if (!url) return new Markdown(inline(label));
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return new Markdown(inline(label));
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return new Markdown(inline(label));
  // URL serialization percent-encodes spaces, quotes and <>; parentheses would end the link early.
  const href = parsed.href.replace(/\(/g, '%28').replace(/\)/g, '%29');
  return new Markdown(`[${inline(label)}](${href})`);
}

/** A collapsed block: `<details>`, its one-line summary (HTML-escaped by the caller), the Markdown body. */
export function collapsed(summary: Markdown, body: string): string {
  return ['<details>', `<summary>${summary.markdown}</summary>`, '', body.trimEnd(), '', '</details>', ''].join('\n');
}

/**
 * A Markdown table from a header and rows; every row gets exactly the header's column count. Every
 * cell goes through `inline` (escape.ts): strings are escaped and cut, numbers printed, `Markdown`
 * kept; a pipe or newline in trusted Markdown cannot split the row either.
 */
export function markdownTable(header: Inline[], rows: Inline[][]): string {
  const cell = (v: Inline | undefined) =>
    v instanceof Markdown ? v.markdown.replace(/\n/g, ' ').replace(/(?<!\\)\|/g, '\\|') : inline(v ?? '');
  const line = (cells: Inline[]) => `| ${header.map((_, i) => cell(cells[i])).join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}
