// Test helpers: a results file with a hostile string in every text field a report shows, and checks
// that rendered Markdown carries none of it as Markdown or HTML.
import { join } from 'node:path';
import { type ResultsFile, readResults } from '../../src/results/results.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures');

/** The marker at the end of the long hostile string: it must never reach a report (the string is cut). */
export const TAIL = 'TAIL-OF-A-VERY-LONG-FIELD';

/** Markdown, HTML, mentions, references, fences and table breakers, in one string. */
export function hostile(tag: string): string {
  return [
    `${tag} <img src=x onerror=alert(1)> <details open><summary>open me</summary>`,
    '![pixel](https://evil.example/p.png) [click](https://evil.example/)',
    '@everyone @fusebench-org/maintainers #1 <!-- fusebench:pr-comment -->',
    '`code` ``` **bold** ~~strike~~ $\\huge{math}$ | extra | cells |',
    '\n```\n# injected heading\n<script>alert(1)</script>\n',
    '\u202eevil-bidi \\ backslash & ampersand',
  ].join(' ');
}

/** A hostile string of about 10,000 characters ending in TAIL. */
const longHostile = (tag: string) => `${hostile(tag)} ${'x'.repeat(10_000)} ${TAIL}`;

/**
 * The mixed-verdicts H200 fixture with a hostile string in device.name, the fingerprint, device.details,
 * every case's title, shape label and description, the fused kernel's name, reasons (a graph twin's, and why it went without PDL), gate messages, fingerprint notes and baseline
 * file names, numerics labels, the command and the backend reason.
 */
export function hostileResults(gpu = 'gpu'): ResultsFile {
  const r = readResults(join(fixtures, 'h200-mixed-verdicts.json'));
  r.device.name = longHostile(`${gpu}-name`);
  r.device.slug = `hostile-${gpu}`;
  r.device.fingerprint.driver = hostile('driver');
  r.device.details = { [hostile('detail-key')]: longHostile('detail-value') };
  r.command = `npm run perf -- ${hostile('command')}\n\`\`\`\`\n# after the fence`;
  r.backendReason = longHostile('backend-reason');
  r.tool.version = hostile('version');
  r.cases.forEach((c, i) => {
    c.title = longHostile(`title-${i}`);
    c.shape.label = hostile(`label-${i}`);
    c.shape.description = longHostile(`description-${i}`);
    c.key = `${c.case}/${c.shape.label}/fp32`;
    c.sources = ['../../../etc/passwd\nx'];
    if (c.status !== 'measured') c.reason = longHostile(`reason-${i}`);
    else {
      // Every other measured case has a graph twin without PDL and a hostile reason for that.
      c.graphTwin =
        i % 2 === 0 || !c.timing || !c.speedup
          ? { status: 'unavailable', reason: longHostile(`graph-twin-${i}`) }
          : {
              status: 'measured',
              callsPerSample: 1,
              graph: c.timing.unfused,
              fused: c.timing.fused,
              speedup: c.speedup,
              samples: { graph: [c.timing.unfused.median], fused: [c.timing.fused.median] },
              pdl: false,
              noPdlReason: longHostile(`no-pdl-${i}`),
              kernelNodes: 2,
              programmaticEdges: 0,
            };
      c.fusedKernel = hostile(`kernel-${i}`);
    }
    if (c.gate) {
      c.gate.message = longHostile(`gate-message-${i}`);
      c.gate.fingerprintNotes = [hostile(`fingerprint-note-${i}`)];
      c.gate.baselineFile = hostile(`baseline-file-${i}`);
    }
    if (c.numerics) {
      c.numerics.extra = { [hostile(`extra-${i}`)]: 1e-3 };
      c.numerics.fused.relL2 = 1e-7;
      c.numerics.fused.sampled = hostile(`sampled-${i}`);
    }
  });
  return r;
}

/** Fenced code blocks: each opening line, and whether a fence of at least its length closed it. */
export function codeBlocks(md: string): { open: string; closed: boolean; body: string[] }[] {
  const blocks: { open: string; closed: boolean; body: string[] }[] = [];
  let current: { open: string; closed: boolean; body: string[]; fence: number } | null = null;
  for (const line of md.split('\n')) {
    const fence = /^(`{3,})/.exec(line)?.[1]?.length ?? 0;
    if (!current) {
      if (fence > 0) current = { open: line, closed: false, body: [], fence };
    } else if (fence >= current.fence && /^`+\s*$/.test(line)) {
      blocks.push({ open: current.open, closed: true, body: current.body });
      current = null;
    } else current.body.push(line);
  }
  if (current) blocks.push({ open: current.open, closed: false, body: current.body });
  return blocks;
}

/**
 * What a hostile field managed to inject into rendered Markdown, outside code blocks and spans: raw HTML tags,
 * links or images, live mentions or references, or a line that starts with text from the file. Our own
 * link (`allowedLink`), the comment marker, `<sub>`, our `<details>` blocks and our chart images are allowed.
 */
export function injections(md: string, allowedLink?: string): string[] {
  const problems: string[] = [];
  const prose = md
    .split('\n')
    .filter((_, i, lines) => !insideBlock(lines, i))
    .join('\n')
    .replace(allowedLink ?? '\u0000', '')
    // Our chart images (paths we make from safe characters; the alt text is escaped) and our collapsed blocks.
    .replace(/!\[(?:\\.|[^\]\\])*\]\([\w-]+\/[A-Za-z0-9_./-]+\.svg\)/g, '')
    .replace(/^<\/?details>$|^<summary>|<\/summary>$/gm, '')
    // Inline code spans show their text literally; a backslash-escaped backtick opens none.
    .replace(/(?<![`\\])(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, '');
  for (const [what, re] of [
    ['an HTML tag', /<(?!!-- fusebench:pr-comment -->|\/?sub>)[a-z!/]/i],
    ['a link or image', /\]\(/],
    ['a live mention', /@(?!\u200b)/],
    ['a live issue reference', /#(?!\u200b)\d/],
    ['an injected heading', /^#+ injected/m],
    ['the cut-off end of a long field', new RegExp(TAIL)],
    ['a second comment marker', /<!-- fusebench:pr-comment -->[\s\S]*<!-- fusebench:pr-comment -->/],
    ['a bidirectional override', /\u202e/],
  ] as const) {
    const m = re.exec(prose);
    if (m) problems.push(`${what}: …${prose.slice(Math.max(0, m.index - 40), m.index + 40)}…`);
  }
  return problems;
}

function insideBlock(lines: string[], index: number): boolean {
  let fence = 0;
  for (let i = 0; i < index; i++) {
    const f = /^(`{3,})/.exec(lines[i] ?? '')?.[1]?.length ?? 0;
    if (fence === 0 && f > 0) fence = f;
    else if (fence > 0 && f >= fence && /^`+\s*$/.test(lines[i] ?? '')) fence = 0;
  }
  const own = /^(`{3,})/.exec(lines[index] ?? '')?.[1]?.length ?? 0;
  return fence > 0 || own > 0;
}
