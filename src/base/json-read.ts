/**
 * Reading a JSON file that matters (a results or baseline file): the file named in every error, and a key that
 * one object holds twice refused. JSON.parse keeps the last of two equal keys without a word, so a merge
 * conflict resolved by hand could drop a baseline entry silently.
 */
import { logText } from './log-text.ts';
import { readTextFile } from './read-text.ts';

/** The parsed contents of `file`; throws naming the file when it cannot be read, parsed, or has a key twice. */
export function readJson(file: string): unknown {
  const text = readTextFile(file);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    // One line: V8's message quotes the text, newlines and all.
    throw new Error(`${file} is not valid JSON: ${logText((e as Error).message, 300)}`);
  }
  const twice = duplicateKey(text);
  if (twice) {
    throw new Error(
      `${file} is not valid: ${twice} appears twice in one object (a merge conflict resolved by hand?); JSON would keep only the last`,
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

/**
 * The path of the first key that an object of `text`, valid JSON, holds twice (e.g. `entries["a/1K/fp32"]`),
 * or undefined. One pass over the text.
 */
export function duplicateKey(text: string): string | undefined {
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
          return childPath();
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
