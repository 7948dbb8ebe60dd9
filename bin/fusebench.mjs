#!/usr/bin/env node
// The `fusebench` command (`npx fusebench <command>`): checks the Node version (scripts/require-node.cjs),
// then runs src/cli/main.ts in a child Node that strips TypeScript types, with the terminal inherited,
// and ends with the child's exit code (or its signal).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// Exits 2 naming the Node version needed when this one is too old (nothing is judged).
createRequire(import.meta.url)('../scripts/require-node.cjs');

const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const child = spawn(
  process.execPath,
  ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', main, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);

// A signal sent to this process alone (a CI runner cancelling the step) reaches the child too; from a
// terminal both get it, and the child's handling decides.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
const forward = (signal) => child.kill(signal);
for (const s of SIGNALS) process.on(s, forward);

child.on('error', (e) => {
  console.error(`fusebench: could not start ${process.execPath}: ${e.message}`);
  process.exit(2);
});
child.on('exit', (code, signal) => {
  for (const s of SIGNALS) process.off(s, forward);
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
