/**
 * What a run measured: the commit (`currentCommit`: FUSEBENCH_COMMIT, GITHUB_SHA or git in fusebench's own
 * checkout, whose kernels ran, wherever the command is run from; with +dirty) and the branch (FUSEBENCH_BRANCH, GITHUB_REF_NAME, or git's current branch; left out when
 * unknown or detached). Results files carry it as `source`, history records as `commit` and `branch`.
 * A value from the environment must look like what it names, else a UsageError names the variable.
 */
import { execFileSync } from 'node:child_process';
import { UsageError } from './cli-args.ts';
import { PACKAGE_ROOT } from './package-root.ts';

/** A commit id as git abbreviates or writes it in full (SHA-1 or SHA-256), with +dirty for a tree that had changes. */
const COMMIT = /^[0-9a-f]{7,64}(?:\+dirty)?$/i;
/**
 * A branch name free of what git forbids in one (no space, ASCII control character or ~^:?*[\), and of any
 * other whitespace or control character (these reach consoles), at most 255 characters. Git's other rules
 * (no "..", no ".lock" at the end, …) are not checked: the value names a run, it is not used as a ref.
 */
const BRANCH = /^[^\s\p{Cc}~^:?*[\\]{1,255}$/u;

/** Where a value comes from (the first of `names` set) and what it must look like. */
interface EnvValue {
  names: string[];
  pattern: RegExp;
  expected: string;
}

const COMMIT_ENV: EnvValue = {
  names: ['FUSEBENCH_COMMIT', 'GITHUB_SHA'],
  pattern: COMMIT,
  expected: 'a commit id (7 to 64 hexadecimal digits, optionally +dirty, as `git rev-parse --short=12 HEAD` prints)',
};
const BRANCH_ENV: EnvValue = {
  names: ['FUSEBENCH_BRANCH', 'GITHUB_REF_NAME'],
  pattern: BRANCH,
  expected: 'a branch name (1 to 255 characters, none of them whitespace, a control character or ~^:?*[\\)',
};

/** The first of `v.names` set in `env`, checked against `v.pattern`; undefined when none is set. */
function fromEnv(env: NodeJS.ProcessEnv, v: EnvValue): string | undefined {
  for (const name of v.names) {
    const value = env[name];
    if (!value) continue;
    if (!v.pattern.test(value)) {
      throw new UsageError(`Expected ${name} to be ${v.expected} but received ${JSON.stringify(value)}`);
    }
    return value;
  }
  return undefined;
}

/** Throws the UsageError currentCommit or currentBranch would for `env`, without asking git anything. */
export function checkSourceEnv(env: NodeJS.ProcessEnv = process.env): void {
  fromEnv(env, COMMIT_ENV);
  fromEnv(env, BRANCH_ENV);
}

/** The commit of a run measured with no git and no commit given (and of results that name none). */
export const UNKNOWN_COMMIT = 'unknown';

/**
 * The commit being measured: FUSEBENCH_COMMIT or GITHUB_SHA when set (a copied or shallow checkout),
 * else git's HEAD (with +dirty when tracked files changed), else "unknown". Throws a UsageError for a
 * set value that is not 7 to 64 hexadecimal digits (optionally +dirty).
 */
export function currentCommit(cwd = PACKAGE_ROOT, env: NodeJS.ProcessEnv = process.env): string {
  const given = fromEnv(env, COMMIT_ENV);
  if (given) return given;
  const git = (args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const sha = git(['rev-parse', '--short=12', 'HEAD']);
    return git(['status', '--porcelain', '--untracked-files=no']) ? `${sha}+dirty` : sha;
  } catch {
    return UNKNOWN_COMMIT;
  }
}

/**
 * The branch being measured, or undefined when there is none to name (a detached HEAD, no git). Throws a
 * UsageError for a FUSEBENCH_BRANCH or GITHUB_REF_NAME that does not match BRANCH.
 */
export function currentBranch(cwd = PACKAGE_ROOT, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = fromEnv(env, BRANCH_ENV);
  if (given) return given;
  try {
    const branch = execFileSync('git', ['rev-parse', '--abbrev-ref', 'HEAD'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return branch && branch !== 'HEAD' ? branch : undefined;
  } catch {
    return undefined;
  }
}

/** The results file's `source`: the commit, and the branch when known. */
export function runSource(
  cwd = PACKAGE_ROOT,
  env: NodeJS.ProcessEnv = process.env,
): { commit: string; branch?: string } {
  const branch = currentBranch(cwd, env);
  return { commit: currentCommit(cwd, env), ...(branch ? { branch } : {}) };
}

/** The repository's web URL inside GitHub Actions (GITHUB_SERVER_URL/GITHUB_REPOSITORY), else undefined. */
export function repositoryUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const server = env.GITHUB_SERVER_URL;
  const repo = env.GITHUB_REPOSITORY;
  return server && repo ? `${server.replace(/\/+$/, '')}/${repo}` : undefined;
}
