/**
 * Command lines as a POSIX shell reads them, for the command a run records (results, locks) and the lines a
 * report gives to paste: a word of plain characters as it is, any other in single quotes. Pure.
 */

/** Characters no shell treats specially, in any position of a word. */
const PLAIN = /^[\w.,:%=/+@-]+$/;

/** One word, quoted only when it needs to be (an empty word as ''); `--option=value` quotes its value only. */
export function shellWord(word: string): string {
  if (PLAIN.test(word)) return word;
  const option = /^(--[\w-]+=)(.*)$/s.exec(word);
  if (option?.[1] && option[2] !== undefined) return `${option[1]}${shellWord(option[2])}`;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Whether every word of a line split at spaces is plain (no quote, separator or substitution). */
export function plainWords(line: string): boolean {
  return line.split(' ').every((w) => w === '' || PLAIN.test(w));
}

/** A word as shellWord writes it, for a pattern: plain characters, quoted runs and escaped quotes. */
export const SHELL_WORD_PATTERN = String.raw`(?:'[^']*'|\\'|[^\s'\\])+`;
