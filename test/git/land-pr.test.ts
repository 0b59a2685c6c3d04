import { copyFileSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { landPr } from '../../src/git/land-pr.js';
import { DEFAULT_PR_COMMAND } from '../../src/git/pr-failure.js';
import type { PrCommand } from '../../src/git/pr-failure.js';
import { git, gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';

const FAKE_GH = fileURLToPath(new URL('../fixtures/fake-gh.sh', import.meta.url));

/** A repository whose `origin` is a bare repository, with the branch `ralph/t` one commit ahead of main. */
function repoWithRemote(): { repo: string; bare: string; tip: string } {
  const repo = gitRepo();
  const bare = join(tempDir('wiggum-remote-'), 'remote.git');
  git(repo, 'clone', '--quiet', '--bare', repo, bare);
  git(repo, 'remote', 'add', 'origin', bare);
  git(repo, 'checkout', '--quiet', '-b', 'ralph/t');
  writeFileSync(join(repo, 'work.txt'), 'work\n');
  git(repo, 'add', 'work.txt');
  git(repo, 'commit', '--quiet', '-m', 'work');
  const tip = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'checkout', '--quiet', 'main');
  return { repo, bare, tip };
}

/** The default command, with a fake `gh` first on its PATH and the given behaviour. */
function fakeGh(env: Record<string, string>): { command: PrCommand; calls: string } {
  const bin = tempDir('wiggum-bin-');
  copyFileSync(FAKE_GH, join(bin, 'gh'));
  const calls = tempDir('wiggum-gh-calls-');
  return {
    calls,
    command: {
      ...DEFAULT_PR_COMMAND,
      env: { PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`, FAKE_GH_DIR: calls, ...env },
    },
  };
}

describe('landPr', () => {
  test('pushes the branch to the bare remote and opens the pull request with gh, returning its URL', async () => {
    const { repo, bare, tip } = repoWithRemote();
    const { command, calls } = fakeGh({ FAKE_GH_URL: 'https://github.com/acme/shop/pull/42' });
    const outcome = await landPr({ repo, branch: 'ralph/t', base: 'main', command });
    expect(outcome).toMatchObject({ kind: 'opened', url: 'https://github.com/acme/shop/pull/42' });
    expect(git(bare, 'rev-parse', 'refs/heads/ralph/t')).toBe(tip);
    expect(readFileSync(join(calls, 'argv.1'), 'utf8').split('\n')).toEqual([
      'pr',
      'create',
      '--fill',
      '--head',
      'ralph/t',
      '--base',
      'main',
      '',
    ]);
    expect(readFileSync(join(calls, 'cwd.1'), 'utf8').trim()).toBe(realpathSync(repo));
  });

  test('a 502 from gh is transient; the next try opens it (the branch pushed again harmlessly)', async () => {
    const { repo } = repoWithRemote();
    const { command } = fakeGh({ FAKE_GH_FAILS: '1', FAKE_GH_URL: 'https://github.com/acme/shop/pull/43' });
    const first = await landPr({ repo, branch: 'ralph/t', base: 'main', command });
    expect(first).toMatchObject({ kind: 'failed', stage: 'command', retry: 'transient' });
    expect(first.kind === 'failed' && first.message).toMatch(/HTTP 502/);
    expect(await landPr({ repo, branch: 'ralph/t', base: 'main', command })).toMatchObject({
      kind: 'opened',
      url: 'https://github.com/acme/shop/pull/43',
    });
  });

  test('a remote that does not exist: the push fails hard, gh never runs', async () => {
    const { repo } = repoWithRemote();
    const { command, calls } = fakeGh({});
    const outcome = await landPr({ repo, branch: 'ralph/t', base: 'main', remote: 'upstream', command });
    expect(outcome).toMatchObject({ kind: 'failed', stage: 'push', retry: 'hard' });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/git push of ralph\/t to upstream failed/);
    expect(() => readFileSync(join(calls, 'calls'))).toThrow();
  });

  test('a command that is not installed is a hard failure that names it', async () => {
    const { repo } = repoWithRemote();
    const outcome = await landPr({
      repo,
      branch: 'ralph/t',
      base: 'main',
      command: { ...DEFAULT_PR_COMMAND, command: join(tempDir(), 'no-such-gh') },
    });
    expect(outcome).toMatchObject({ kind: 'failed', stage: 'command', retry: 'hard' });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/no-such-gh could not be started/);
  });

  test('title and env placeholders reach a custom command', async () => {
    const { repo } = repoWithRemote();
    const { command, calls } = fakeGh({ FAKE_GH_URL: 'https://example.test/pr/1' });
    await landPr({
      repo,
      branch: 'ralph/t',
      base: 'main',
      title: 'Add work',
      command: { ...command, args: ['pr', 'create', '--title', '{title}', '--head', '{remote}:{branch}'] },
    });
    expect(readFileSync(join(calls, 'argv.1'), 'utf8')).toBe('pr\ncreate\n--title\nAdd work\n--head\norigin:ralph/t\n');
  });
});
