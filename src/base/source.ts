/**
 * What a run measured: the commit (`currentCommit`: FUSEBENCH_COMMIT, GITHUB_SHA or git,
 * with +dirty) and the branch (FUSEBENCH_BRANCH, GITHUB_REF_NAME, or git's current branch; left out when
 * unknown or detached). Results files carry it as `source`, history records as `commit` and `branch`.
 */
import { execFileSync } from 'node:child_process';

/**
 * The commit being measured: FUSEBENCH_COMMIT or GITHUB_SHA when set (a copied or shallow checkout),
 * else git's HEAD (with +dirty when tracked files changed), else "unknown".
 */
export function currentCommit(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): string {
  const given = env.FUSEBENCH_COMMIT || env.GITHUB_SHA;
  if (given) return given;
  const git = (args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const sha = git(['rev-parse', '--short=12', 'HEAD']);
    return git(['status', '--porcelain', '--untracked-files=no']) ? `${sha}+dirty` : sha;
  } catch {
    return 'unknown';
  }
}

/** The branch being measured, or undefined when there is none to name (a detached HEAD, no git). */
export function currentBranch(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.FUSEBENCH_BRANCH || env.GITHUB_REF_NAME;
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
  cwd = process.cwd(),
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
