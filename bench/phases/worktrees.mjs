// Many tasks on one repository at once: the real daemon (`wiggum start`) on a real git repository,
// each task in its own worktree, the agent a real script that works 2 s, commits and claims
// completion. Figures: one task alone (the time of one), 4 tasks at concurrency 4, and the same 4
// with `git.max_parallel_per_repo: 1` (serial), each from the drop into Approved/ to the last in Done/.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../lib/cleanup.mjs';
import { Daemon } from '../lib/daemon.mjs';
import { makeVault } from '../lib/fixtures.mjs';
import { sleep, summarize } from '../lib/stats.mjs';

const GIT_ID = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];
const git = (cwd, args) => execFileSync('git', [...GIT_ID, ...args], { cwd, encoding: 'utf8' }).trim();

/** A repository with one commit on main, as a user's working copy: a tracked file and an untracked one. */
function makeRepo(dir) {
  mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q']);
  git(dir, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
  writeFileSync(join(dir, 'README.md'), '# bench repository\n');
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-qm', 'initial']);
  writeFileSync(join(dir, 'notes.txt'), 'the user is writing this\n');
  return dir;
}

/** What must not change in the user's working copy: its branch, HEAD, index and status. */
function fingerprint(repo) {
  return [
    git(repo, ['symbolic-ref', '-q', 'HEAD']),
    git(repo, ['rev-parse', 'HEAD']),
    git(repo, ['ls-files', '-s']),
    git(repo, ['status', '--porcelain=v1', '-uall']),
  ].join('\n');
}

/**
 * The agent, a `command` harness: records when it started and ended ($EPOCHREALTIME) and where it
 * ran, works BENCH_WORK_S seconds, commits a file of its own on whatever branch it is on, claims
 * completion. The task has no stories, so the promise alone completes it.
 */
function writeAgent(dir) {
  const path = join(dir, 'worktree-agent.sh');
  writeFileSync(
    path,
    [
      '#!/bin/bash',
      'm="$BENCH_MARKS/$WIGGUM_TASK_ID"',
      'printf \'%s\\n\' "$EPOCHREALTIME" > "$m.start"',
      'pwd -P > "$m.cwd"',
      'sleep "$BENCH_WORK_S"',
      'printf \'work of %s\\n\' "$WIGGUM_TASK_ID" > "work-$WIGGUM_TASK_ID.txt"',
      'git add "work-$WIGGUM_TASK_ID.txt" && git -c user.name=agent -c user.email=agent@example.com -c commit.gpgsign=false commit -qm "work of $WIGGUM_TASK_ID" || exit 1',
      'git rev-parse --abbrev-ref HEAD > "$m.branch"',
      'printf \'%s\\n\' "$EPOCHREALTIME" > "$m.end"',
      'printf \'Committed.\\n<promise>%s</promise>\\n\' "$WIGGUM_PROMISE"',
      '',
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  return path;
}

function config({ agent, marks, repos, workS, concurrency, perRepo }) {
  return [
    'vault:',
    `  allowed_workdirs: [${repos}]`,
    'daemon:',
    `  concurrency: ${concurrency}`,
    'git:',
    `  max_parallel_per_repo: ${perRepo}`,
    'harness:',
    '  default: bench',
    'harnesses:',
    '  bench:',
    '    kind: command',
    `    command: ${agent}`,
    '    args: []',
    '    env:',
    `      BENCH_MARKS: ${marks}`,
    `      BENCH_WORK_S: "${workS}"`,
    '',
  ].join('\n');
}

const taskText = (id, repo) =>
  `---\ntitle: ${id}\nworkdir: ${repo}\nmax_iterations: 3\n---\n# ${id}\n\nAdd work-${id}.txt with one line and commit it.\n`;

/** A daemon on a fresh vault and repository; `perRepo` is git.max_parallel_per_repo (0: no cap). */
async function startSetup(prefix, { workS, concurrency, perRepo }) {
  const root = tempDir(prefix);
  const marks = join(root, 'marks');
  const repos = join(root, 'repos');
  mkdirSync(marks);
  const repo = makeRepo(join(repos, 'app'));
  const vault = makeVault(root, config({ agent: writeAgent(root), marks, repos, workS, concurrency, perRepo }));
  const before = fingerprint(repo);
  const daemon = Daemon.start(vault.root, { logDir: root });
  await daemon.waitForLog(/"event":"daemon.started"/);
  await sleep(500);
  return { vault, marks, repo, before, daemon };
}

const readMark = (marks, id, kind) => {
  const file = join(marks, `${id}.${kind}`);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
};
const markMs = (marks, id, kind) => Number(readMark(marks, id, kind)?.replace(',', '.')) * 1000;

/**
 * Drops `ids` into Approved/ at once and waits for all of them in Done/: the wall time from just
 * before the first write to the poll (every 20 ms) that saw the last one there. A task in
 * Rejected/ ends the phase with its report.
 */
async function dropAndWait(setup, ids, timeoutMs) {
  const { vault, repo, daemon } = setup;
  const t0 = performance.now();
  for (const id of ids) writeFileSync(join(vault.approved, `${id}.md`), taskText(id, repo));
  for (;;) {
    const elapsed = performance.now() - t0;
    if (ids.every((id) => existsSync(join(vault.done, `${id}.md`)))) return elapsed;
    const rejected = ids.find((id) => existsSync(join(vault.rejected, `${id}.md`)));
    if (rejected !== undefined)
      throw new Error(`${rejected} was rejected:\n${readFileSync(join(vault.rejected, `${rejected}.md`), 'utf8')}`);
    if (daemon.exitCode !== undefined)
      throw new Error(`the daemon exited (${daemon.exitCode}):\n${daemon.log().slice(-2000)}`);
    if (elapsed > timeoutMs)
      throw new Error(`not all of ${ids.join(', ')} in Done/ after ${timeoutMs} ms:\n${daemon.log().slice(-2000)}`);
    await sleep(20);
  }
}

/**
 * What the figure stands on, checked after the runs: every task's agent ran once, in a worktree
 * (not the user's repository) on its own branch, which holds its commit; the user's working copy
 * is unchanged. `overlapMs`: how long all of `ids` ran at the same time (negative: they did not).
 */
function checkRun(setup, ids) {
  const { marks, repo } = setup;
  const problems = [];
  for (const id of ids) {
    const branch = readMark(marks, id, 'branch');
    const cwd = readMark(marks, id, 'cwd');
    if (cwd === null || cwd === repo) problems.push(`${id} ran in ${cwd ?? 'nowhere'}, not in a worktree of its own`);
    if (branch === null || branch === 'main') problems.push(`${id} committed on ${branch ?? 'no branch'}`);
    else if (git(repo, ['log', '--format=%H', branch, '--', `work-${id}.txt`]) === '')
      problems.push(`${branch} does not hold ${id}'s commit`);
  }
  const cwds = new Set(ids.map((id) => readMark(marks, id, 'cwd')));
  if (cwds.size !== ids.length) problems.push(`${ids.length} tasks ran in ${cwds.size} worktrees`);
  const starts = ids.map((id) => markMs(marks, id, 'start'));
  const ends = ids.map((id) => markMs(marks, id, 'end'));
  const overlapMs = Math.min(...ends) - Math.max(...starts);
  const runsMs = ids.map((_, i) => ends[i] - starts[i]);
  // How far apart the agents started, and ended: what opening and closing the runs serially costs.
  const startSpreadMs = Math.max(...starts) - Math.min(...starts);
  const endSpreadMs = Math.max(...ends) - Math.min(...ends);
  return { problems, overlapMs, runsMs, startSpreadMs, endSpreadMs };
}

/** Runs one daemon's rounds, then stops it and checks the user's working copy. */
async function withSetup(prefix, options, body) {
  const setup = await startSetup(prefix, options);
  let result;
  try {
    result = await body(setup);
  } finally {
    await setup.daemon.stop();
  }
  const unchanged = fingerprint(setup.repo) === setup.before;
  const worktreesLeft =
    git(setup.repo, ['worktree', 'list', '--porcelain'])
      .split('\n')
      .filter((line) => line.startsWith('worktree ')).length - 1;
  return { ...result, workingCopyUnchanged: unchanged, worktreesLeft };
}

/**
 * After one task alone that is not counted (the daemon's first run loads what a run needs), `rounds`
 * times, interleaved: one task alone, then `tasks` tasks at once (daemon.concurrency = `tasks`, no
 * per-repository cap). Then, on a second daemon with the same concurrency and
 * `git.max_parallel_per_repo: 1`, `tasks` tasks once: serial. The agent works `workS` seconds in each.
 */
export async function worktreesParallel({ tasks = 4, rounds = 2, workS = 2, timeoutMs = 60_000 }) {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const ids = (prefix) => Array.from({ length: tasks }, (_, i) => `${prefix}-${letters[i]}`);
  const parallel = await withSetup('worktrees', { workS, concurrency: tasks, perRepo: 0 }, async (setup) => {
    const one = [];
    const all = [];
    const checks = [];
    await dropAndWait(setup, ['warm-up'], timeoutMs);
    for (let r = 1; r <= rounds; r += 1) {
      one.push(await dropAndWait(setup, [`one-${r}`], timeoutMs));
      checks.push(checkRun(setup, [`one-${r}`]));
      const batch = ids(`par-${r}`);
      all.push(await dropAndWait(setup, batch, timeoutMs));
      checks.push({ ...checkRun(setup, batch), parallel: true });
    }
    return { one, all, checks };
  });
  const serial = await withSetup('worktrees-serial', { workS, concurrency: tasks, perRepo: 1 }, async (setup) => {
    const batch = ids('ser');
    const ms = await dropAndWait(setup, batch, timeoutMs);
    const check = checkRun(setup, batch);
    // Under the cap of 1 no two runs may overlap: sorted by start, each starts after the previous ended.
    const spans = batch
      .map((id) => [markMs(setup.marks, id, 'start'), markMs(setup.marks, id, 'end')])
      .sort((a, b) => a[0] - b[0]);
    const capHeld = spans.every((span, i) => i === 0 || span[0] >= spans[i - 1][1]);
    return { ms, check, capHeld };
  });

  const one = summarize(parallel.one);
  const all = summarize(parallel.all);
  const problems = [
    ...parallel.checks.flatMap((c) => c.problems),
    ...serial.check.problems,
    ...(parallel.checks.filter((c) => c.parallel).every((c) => c.overlapMs > 0)
      ? []
      : [`the ${tasks} tasks of a round did not all run at the same time`]),
    ...(serial.capHeld ? [] : ['git.max_parallel_per_repo: 1 let two runs overlap']),
    ...(parallel.workingCopyUnchanged && serial.workingCopyUnchanged ? [] : ["the user's working copy changed"]),
  ];
  return {
    tasks,
    rounds,
    workS,
    oneMs: parallel.one,
    parallelMs: parallel.all,
    serialMs: serial.ms,
    one,
    parallel: all,
    parallelToOne: all.p50 / one.p50,
    serialToParallel: serial.ms / all.p50,
    overlapMs: parallel.checks.filter((c) => c.parallel).map((c) => c.overlapMs),
    startSpreadMs: parallel.checks.filter((c) => c.parallel).map((c) => c.startSpreadMs),
    endSpreadMs: parallel.checks.filter((c) => c.parallel).map((c) => c.endSpreadMs),
    agentRunsMs: parallel.checks.flatMap((c) => c.runsMs),
    serialCapHeld: serial.capHeld,
    workingCopyUnchanged: parallel.workingCopyUnchanged && serial.workingCopyUnchanged,
    worktreesLeft: parallel.worktreesLeft + serial.worktreesLeft,
    problems,
  };
}
