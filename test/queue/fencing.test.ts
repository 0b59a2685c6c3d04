import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { WiggumError } from '../../src/errors.js';
import { fenceDecision, pushLeaseArgs, pushOutcome } from '../../src/queue/fencing.js';
import type { FenceFacts } from '../../src/queue/fencing.js';
import { GIT_IDENTITY, git, gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

const facts = (overrides: Partial<FenceFacts> = {}): FenceFacts => ({
  generation: 2,
  job: { generation: 2, lockHeld: true },
  branch: { remoteCommit: A, lease: A },
  ...overrides,
});

describe('fenceDecision: a late worker never pushes nor reports, and stops its agent', () => {
  test.each([
    ['the owner: lock held, current generation, branch where it left it', facts(), { kind: 'proceed' }],
    [
      'the owner of a new branch (nothing pushed yet)',
      facts({ branch: { remoteCommit: null, lease: null } }),
      { kind: 'proceed' },
    ],
    [
      'the job is gone (removed, ended elsewhere)',
      facts({ job: null }),
      { kind: 'stop-agent-and-drop', reason: 'job-gone' },
    ],
    [
      'its lock lapsed (SIGSTOP longer than the lock), nobody took it yet',
      facts({ job: { generation: 2, lockHeld: false } }),
      { kind: 'stop-agent-and-drop', reason: 'lock-lost' },
    ],
    [
      'its lock lapsed and another worker took the job',
      facts({ job: { generation: 3, lockHeld: false } }),
      { kind: 'stop-agent-and-drop', reason: 'lock-lost' },
    ],
    [
      'a newer generation holds the job, though the lock token reads as ours',
      facts({ job: { generation: 3, lockHeld: true } }),
      { kind: 'stop-agent-and-drop', reason: 'superseded' },
    ],
    [
      'the remote branch moved past the lease (another worker pushed)',
      facts({ branch: { remoteCommit: B, lease: A } }),
      { kind: 'stop-agent-and-drop', reason: 'branch-moved' },
    ],
    [
      'the branch appeared while this worker expected none',
      facts({ branch: { remoteCommit: B, lease: null } }),
      { kind: 'stop-agent-and-drop', reason: 'branch-moved' },
    ],
    [
      'the branch was deleted under the lease',
      facts({ branch: { remoteCommit: null, lease: A } }),
      { kind: 'stop-agent-and-drop', reason: 'branch-moved' },
    ],
  ] as const)('%s', (_name, given, expected) => {
    expect(fenceDecision(given)).toEqual(expected);
  });
});

describe('pushLeaseArgs', () => {
  test.each([
    [
      'a lease on the last pushed commit',
      { remote: 'origin', branch: 'wiggum/t1', commit: B, lease: A },
      ['push', '--porcelain', `--force-with-lease=refs/heads/wiggum/t1:${A}`, 'origin', `${B}:refs/heads/wiggum/t1`],
    ],
    [
      'a first push: the branch must not exist',
      { remote: '/srv/git/app.git', branch: 'wiggum/t1', commit: B, lease: null },
      [
        'push',
        '--porcelain',
        '--force-with-lease=refs/heads/wiggum/t1:',
        '/srv/git/app.git',
        `${B}:refs/heads/wiggum/t1`,
      ],
    ],
  ])('%s', (_name, push, expected) => {
    expect(pushLeaseArgs(push)).toEqual(expected);
  });

  test.each([
    ['a remote that reads as an option', { remote: '--upload-pack=x', branch: 'b', commit: B, lease: A }],
    ['a branch with ..', { remote: 'origin', branch: 'a..b', commit: B, lease: A }],
    ['HEAD instead of a commit', { remote: 'origin', branch: 'b', commit: 'HEAD', lease: A }],
    ['a short lease', { remote: 'origin', branch: 'b', commit: B, lease: 'abc' }],
  ])('refused: %s', (_name, push) => {
    expect(() => pushLeaseArgs(push)).toThrow(WiggumError);
  });
});

describe('the lease with real git: of two workers, only the first push lands', () => {
  /** Runs git; returns its porcelain output and exit status (a refused push exits non-zero). */
  function push(dir: string, args: string[]): { status: number | null; stdout: string } {
    const run = spawnSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...GIT_IDENTITY } });
    return { status: run.status, stdout: run.stdout };
  }
  function commit(dir: string, text: string): string {
    writeFileSync(join(dir, 'work.txt'), text);
    git(dir, 'add', '--all');
    git(dir, 'commit', '--quiet', '-m', text);
    return git(dir, 'rev-parse', 'HEAD');
  }

  test('first push, the owner goes on, a zombie with the old lease is refused, its retry too', () => {
    const remote = tempDir('wiggum-remote-');
    git(remote, 'init', '--quiet', '--bare', '--initial-branch=main');
    const owner = gitRepo();
    const zombie = tempDir('wiggum-zombie-');
    const branch = 'wiggum/t1';

    const first = commit(owner, 'iteration 1');
    const pushed = push(owner, pushLeaseArgs({ remote, branch, commit: first, lease: null }));
    expect([pushed.status, pushOutcome(pushed.stdout, branch)]).toEqual([0, 'pushed']);

    // The zombie resumed from iteration 1 too, then lost its lock; the owner pushes iteration 2.
    git(zombie, 'clone', '--quiet', remote, '.');
    git(zombie, 'checkout', '--quiet', branch);
    const second = commit(owner, 'iteration 2');
    expect(
      pushOutcome(push(owner, pushLeaseArgs({ remote, branch, commit: second, lease: first })).stdout, branch),
    ).toBe('pushed');

    const late = commit(zombie, 'iteration 2, late');
    const refused = push(zombie, pushLeaseArgs({ remote, branch, commit: late, lease: first }));
    expect(refused.status).not.toBe(0);
    expect(pushOutcome(refused.stdout, branch)).toBe('lease-refused');
    expect(git(remote, 'rev-parse', branch)).toBe(second);

    // A first push of a branch that exists by now is refused the same way.
    const again = push(zombie, pushLeaseArgs({ remote, branch, commit: late, lease: null }));
    expect(pushOutcome(again.stdout, branch)).toBe('lease-refused');
    // The same commit pushed again: nothing to do.
    expect(
      pushOutcome(push(owner, pushLeaseArgs({ remote, branch, commit: second, lease: second })).stdout, branch),
    ).toBe('up-to-date');
  });
});

describe('pushOutcome: the porcelain flag column', () => {
  const line = (flag: string, summary: string): string => `To /r.git\n${flag}\tabc:refs/heads/b\t${summary}\nDone\n`;
  test.each([
    ['pushed', line(' ', 'a..b'), 'pushed'],
    ['forced', line('+', 'a...b (forced update)'), 'pushed'],
    ['new branch', line('*', '[new branch]'), 'pushed'],
    ['up to date', line('=', '[up to date]'), 'up-to-date'],
    ['the lease no longer holds', line('!', '[rejected] (stale info)'), 'lease-refused'],
    ['a hook refused it', line('!', '[remote rejected] (pre-receive hook declined)'), 'rejected'],
    ['another ref only', 'To /r.git\n*\tabc:refs/heads/other\t[new branch]\n', null],
    ['git failed before pushing', '', null],
  ])('%s', (_name, output, expected) => {
    expect(pushOutcome(output, 'b')).toBe(expected);
  });
});
