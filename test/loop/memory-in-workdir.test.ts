import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runTask } from '../../src/loop/run-task.js';
import type { TaskRunResult } from '../../src/loop/events.js';
import { parseTask } from '../../src/task/parse.js';
import { captureLogger } from '../helpers/capture-logger.js';
import type { LogLine } from '../helpers/capture-logger.js';
import { GIT_IDENTITY, git, gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { runDeps } from '../helpers/run-deps.js';

/**
 * An agent as the seed describes one: it marks the stories passing in $WIGGUM_PRD, appends to
 * $WIGGUM_PROGRESS, and commits everything with `git add -A` (outside a repository it commits
 * nothing). It records, per call, the paths it was given, the progress it read, its prompt and its
 * commit. Call $FAIL_AT commits a note and exits 78 (rejected).
 */
const AGENT = `#!/bin/sh
d=$MARKS; n=$(( $(cat "$d/calls" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$d/calls"
cat > "$d/prompt.$n"
printf '%s\\n%s\\n' "$WIGGUM_PRD" "$WIGGUM_PROGRESS" > "$d/memory.$n"
cp "$WIGGUM_PROGRESS" "$d/progress-seen.$n"
pwd -P > "$d/cwd.$n"
echo "work of call $n" > "work-$n.txt"
if [ "$n" = "\${FAIL_AT:-0}" ]; then
  printf '\\n## call %s\\n- learned: the note of a failed call\\n' "$n" >> "$WIGGUM_PROGRESS"
  git add -A && git commit -qm "wip: call $n"; exit 78
fi
sed -i 's/"passes": *false/"passes": true/g' "$WIGGUM_PRD"
printf '\\n## call %s\\n- done\\n' "$n" >> "$WIGGUM_PROGRESS"
if git rev-parse --git-dir >/dev/null 2>&1; then git add -A && git commit -qm "feat: call $n" && git rev-parse HEAD > "$d/head.$n"; fi
printf '<promise>%s</promise>\\n' "$WIGGUM_PROMISE"
`;

const TASK = (workdir: string): string =>
  `---\ntitle: memory travels\nharness: seed\nworkdir: ${workdir}\n---\nDo it.\n\n- [ ] S-1 the only story\n`;

async function vaultFor(
  root: string,
  inWorkdir: boolean,
  env: Record<string, string> = {},
): Promise<TestVault & { marks: string }> {
  const marks = tempDir('wiggum-marks-');
  const agent = join(tempDir('wiggum-agent-'), 'seed-agent.sh');
  writeFileSync(agent, AGENT);
  chmodSync(agent, 0o755);
  const vault = await makeVault({
    config: {
      vault: { allowed_workdirs: [root] },
      memory: { in_workdir: inWorkdir },
      // The marks are the test's channel to the agent, declared writable across its sandbox.
      sandbox: { writable: [marks] },
      harnesses: { seed: { kind: 'command', command: agent, env: { ...GIT_IDENTITY, MARKS: marks, ...env } } },
    },
  });
  return { ...vault, marks };
}

async function run(vault: TestVault, file: string): Promise<{ result: TaskRunResult; logs: LogLine[] }> {
  const { logger, lines } = captureLogger();
  const result = await runTask({ file, stream: null, signal: new AbortController().signal }, runDeps(vault, logger));
  return { result, logs: lines };
}

function loopOf(file: string): Record<string, unknown> {
  const parsed = parseTask('t.md', readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error('the task file does not parse');
  return parsed.task.frontmatter.persistence_loop as Record<string, unknown>;
}

const read = (path: string): string => readFileSync(path, 'utf8');

/**
 * Where an agent is told its memory lives when it is not in the workdir: the session folder, or, for
 * a confined run, the copies of it in the task's sandbox folder (read back into the session after the run).
 */
function memoryPlaces(vault: TestVault, id: string): string[][] {
  const session = join(vault.layout.sessions, id);
  const copies = join(vault.root, '.wiggum', 'sandbox', id, 'memory');
  return [session, copies].map((dir) => [join(dir, 'prd.json'), join(dir, 'progress.txt')]);
}
const lines = (path: string): string[] => read(path).trim().split('\n');

describe('memory.in_workdir', () => {
  test("prd.json and progress.txt are in the task's worktree, in the agent's commit with the code; the checkpoint names them; the session keeps a copy", async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const vault = await vaultFor(dirname(repo), true);
    const { result, logs } = await run(vault, vault.task('mem', TASK(repo)));
    expect(result.status).toBe('done');

    const [prd = '', progress = ''] = lines(join(vault.marks, 'memory.1'));
    const cwd = read(join(vault.marks, 'cwd.1')).trim();
    expect(cwd).not.toBe(repo);
    expect([relative(cwd, prd), relative(cwd, progress)]).toEqual(['.ralph/mem/prd.json', '.ralph/mem/progress.txt']);
    const head = read(join(vault.marks, 'head.1')).trim();
    expect(git(repo, 'show', '--name-only', '--format=', head).split('\n').sort()).toEqual([
      '.ralph/mem/prd.json',
      '.ralph/mem/progress.txt',
      'work-1.txt',
    ]);
    // What the branch holds is what the agent wrote: the story passing, its progress note.
    expect(JSON.parse(git(repo, 'show', `${head}:.ralph/mem/prd.json`))).toMatchObject({
      userStories: [{ id: 'S-1', passes: true }],
    });
    expect(git(repo, 'show', `${head}:.ralph/mem/progress.txt`)).toContain('## call 1');
    // The prompt points at them too.
    expect(read(join(vault.marks, 'prompt.1'))).toContain(prd);

    const done = join(vault.layout.done, 'mem.md');
    expect(loopOf(done)).toMatchObject({ status: 'done', memory: '.ralph/mem/' });
    expect(read(done)).toMatch(/^ {2}memory: \.ralph\/mem\/$/m);
    // The session folder has the synced copy: what status and the reports read, the worktree gone.
    expect(existsSync(cwd)).toBe(false);
    const session = join(vault.layout.sessions, 'mem');
    expect(JSON.parse(read(join(session, 'prd.json')))).toMatchObject({ userStories: [{ id: 'S-1', passes: true }] });
    expect(read(join(session, 'progress.txt'))).toContain('## call 1');
    expect(read(done)).toMatch(/S-1/);
    expect(logs.some((line) => line['event'] === 'session.memory-in-workdir')).toBe(true);
  });

  test('a retry finds them again on the branch: the committed progress is kept, not recreated', async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const vault = await vaultFor(dirname(repo), true, { FAIL_AT: '1' });
    const first = await run(vault, vault.task('again', TASK(repo)));
    expect(first.result.status).toBe('rejected');
    expect(git(repo, 'show', 'ralph/again:.ralph/again/progress.txt')).toContain('the note of a failed call');

    // Moved back by hand, as `wiggum retry` sends it: the same session, a new worktree on the same branch.
    const back = join(vault.layout.approved, 'again.md');
    renameSync(join(vault.layout.rejected, 'again.md'), back);
    const second = await run(vault, back);
    expect(second.result.status).toBe('done');
    expect(read(join(vault.marks, 'progress-seen.2'))).toContain('the note of a failed call');
    const head = read(join(vault.marks, 'head.2')).trim();
    const committed = git(repo, 'show', `${head}:.ralph/again/progress.txt`);
    expect(committed).toContain('the note of a failed call');
    expect(committed).toContain('## call 2');
    expect(read(join(vault.layout.sessions, 'again', 'progress.txt'))).toBe(`${committed}\n`);
    expect(second.logs.find((line) => line['event'] === 'session.memory-in-workdir')?.['seeded']).toEqual({
      prd: 'workdir',
      progress: 'workdir',
    });
  });

  test('a workdir that is not a git repository keeps its memory in the session folder, and the task runs', async () => {
    const root = tempDir('wiggum-plain-');
    const workdir = join(root, 'plain');
    mkdirSync(workdir);
    const vault = await vaultFor(root, true);
    const { result, logs } = await run(vault, vault.task('plain', TASK(workdir)));
    expect(result.status).toBe('done');
    expect(memoryPlaces(vault, 'plain')).toContainEqual(lines(join(vault.marks, 'memory.1')));
    expect(existsSync(join(vault.layout.sessions, 'plain', 'prd.json'))).toBe(true);
    expect(existsSync(join(workdir, '.ralph'))).toBe(false);
    expect(loopOf(join(vault.layout.done, 'plain.md'))['memory']).toBeUndefined();
    expect(logs.find((line) => line['event'] === 'session.memory-not-in-workdir')?.['why']).toBe('not-a-repository');
  });

  test('off (the default): the session folder, as always, in a repository too', async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const vault = await vaultFor(dirname(repo), false);
    const { result } = await run(vault, vault.task('off', TASK(repo)));
    expect(result.status).toBe('done');
    expect(memoryPlaces(vault, 'off')).toContainEqual(lines(join(vault.marks, 'memory.1')));
    expect(existsSync(join(vault.layout.sessions, 'off', 'prd.json'))).toBe(true);
    const head = read(join(vault.marks, 'head.1')).trim();
    expect(git(repo, 'show', '--name-only', '--format=', head)).toBe('work-1.txt');
    expect(loopOf(join(vault.layout.done, 'off.md'))['memory']).toBeUndefined();
  });
});
