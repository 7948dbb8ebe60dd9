/**
 * Reading a JSON file that matters (a results or baseline file): the file named in every error, and a key that
 * one object holds twice refused. JSON.parse keeps the last of two equal keys without a word, so a merge
 * conflict resolved by hand could drop a baseline entry silently.
 */
import { logText } from './log-text.ts';
import { MAX_JSON_FILE_BYTES, readTextFile } from './read-text.ts';

/**
 * Deeper than any file fusebench writes (a results file nests 6 levels), and shallow enough for every
 * recursive walk of the value after it is read: a baseline entry's unknown field 200,000 levels deep was
 * kept as it was and overflowed the stack when the baselines were written, after the whole run.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The parsed contents of `file`; throws naming the file when it cannot be read or parsed, is larger than
 * MAX_JSON_FILE_BYTES, nests deeper than MAX_JSON_DEPTH, or has a key twice.
 */
export function readJson(file: string): unknown {
  const text = readTextFile(file, MAX_JSON_FILE_BYTES);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    // One line: V8's message quotes the text, newlines and all.
    throw new Error(`${file} is not valid JSON: ${logText((e as Error).message, 300)}`);
  }
  const problem = structureProblem(text);
  if (problem?.kind === 'twice') {
    throw new Error(
      `${file} is not valid: ${problem.path} appears twice in one object (a merge conflict resolved by hand?); JSON would keep only the last`,
    );
  }
  if (problem?.kind === 'deep') {
    throw new Error(
      `${file} is not valid: ${logText(problem.path, 200)} nests deeper than ${MAX_JSON_DEPTH} levels, more than any file fusebench writes`,
    );
  }
  return data;
}

interface Frame {
  keys?: Set<string>; // an object's keys so far; absent in an array
  expectKey: boolean;
  key: string; // the object's last key
  index: number; // the array's current index
  path: string;
}

/** The path of the first key that an object of `text`, valid JSON, holds twice (e.g. `entries["a/1K/fp32"]`), or undefined. */
export function duplicateKey(text: string): string | undefined {
  const problem = structureProblem(text);
  return problem?.kind === 'twice' ? problem.path : undefined;
}

/**
 * The first key an object of `text` (valid JSON) holds twice, or the first value nested deeper than
 * MAX_JSON_DEPTH, with its path; undefined when there is neither. One pass over the text.
 */
function structureProblem(text: string): { kind: 'twice' | 'deep'; path: string } | undefined {
  const stack: Frame[] = [];
  const childPath = () => {
    const top = stack.at(-1);
    if (!top) return '';
    if (!top.keys) return `${top.path}[${top.index}]`;
    return /^[A-Za-z_$][\w$]*$/.test(top.key)
      ? `${top.path}${top.path ? '.' : ''}${top.key}`
      : `${top.path}[${JSON.stringify(top.key)}]`;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '[') {
      if (stack.length >= MAX_JSON_DEPTH) return { kind: 'deep', path: childPath() };
      stack.push({
        ...(c === '{' ? { keys: new Set<string>() } : {}),
        expectKey: c === '{',
        key: '',
        index: 0,
        path: childPath(),
      });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack.at(-1);
      if (top?.keys) top.expectKey = true;
      else if (top) top.index++;
    } else if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) {
          top.key = key;
          return { kind: 'twice', path: childPath() };
        }
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = j;
    }
  }
  return undefined;
}
