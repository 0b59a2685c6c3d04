import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, killHard, requireBuild, runCli } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitForFile } from '../helpers/wait.js';
import { BWRAP_WORKS } from './git-bwrap.js';

const G = ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false'];

/**
 * A confined agent commits into a private objects folder and a private copy of its branch, moved
 * into the repository when its run ends. A kill -9 of wiggum ends the run before that: the next
 * run of the task (or the daemon's closing of the worktree, when the task is gone) moves it in.
 */
describe.runIf(BWRAP_WORKS)('a confined run cut off by a kill -9 of wiggum after its agent committed', () => {
  test('the next run finds the commit on the task branch; the task ends in Done/ with it', async () => {
    const root = tempDir('wiggum-cut-');
    const marks = join(root, 'marks');
    const repo = join(root, 'code', 'app');
    mkdirSync(repo, { recursive: true });
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);
    writeFileSync(join(repo, 'README.md'), '# app\n');
    execFileSync('git', [...G, '-C', repo, 'add', '-A']);
    execFileSync('git', [...G, '-C', repo, 'commit', '-qm', 'initial']);
    const agent = join(root, 'agent.sh');
    writeFileSync(
      agent,
      [
        '#!/bin/sh',
        'cat > /dev/null',
        'n=$(( $(cat "$MARKS/calls" 2>/dev/null || echo 0) + 1 )); echo $n > "$MARKS/calls"',
        'if [ $n -eq 1 ]; then',
        `  echo work > work.txt && git ${G.join(' ')} add work.txt && git ${G.join(' ')} commit -qm 'the cut work'`,
        '  git rev-parse HEAD > "$MARKS/head.1"; sleep 60',
        'fi',
        'git log --format=%s > "$MARKS/log.$n"',
        "echo '<promise>COMPLETE</promise>'",
        '',
      ].join('\n'),
    );
    chmodSync(agent, 0o755);
    const vault = join(root, 'vault');
    for (const folder of ['Approved', 'Done', '.wiggum']) mkdirSync(join(vault, folder), { recursive: true });
    writeFileSync(
      join(vault, '.wiggum', 'config.yaml'),
      `vault:\n  allowed_workdirs: [${join(root, 'code')}]\nharnesses:\n  cut:\n    kind: command\n    command: ${agent}\n    env:\n      MARKS: ${marks}\n`,
    );
    const task = join(vault, 'Approved', 'cut.md');
    writeFileSync(task, `---\ntitle: cut\nharness: cut\nworkdir: ${repo}\nmax_iterations: 3\n---\n# cut\n`);
    requireBuild();
    const env = { PATH: process.env['PATH'] ?? '', HOME: join(root, 'home') };
    const first = spawn(process.execPath, [CLI, 'run', task, '--vault', vault], { env });
    await waitForFile(join(marks, 'head.1'), 60_000);
    await killHard(first);
    const committed = readFileSync(join(marks, 'head.1'), 'utf8').trim();
    // Cut off: the commit is in the run's private folder only, the branch where it was.
    expect(execFileSync('git', ['-C', repo, 'log', '--format=%s', 'ralph/cut']).toString()).toBe('initial\n');

    const again = await runCli(['run', task, '--vault', vault], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/"event":"sandbox.git-recovered"/);
    expect(readFileSync(join(marks, 'log.2'), 'utf8')).toBe('the cut work\ninitial\n');
    expect(execFileSync('git', ['-C', repo, 'rev-parse', 'ralph/cut']).toString().trim()).toBe(committed);
    expect(existsSync(join(vault, 'Done', 'cut.md'))).toBe(true);
  });
});
