// Scale-out through the queue: a real redis-server, a vault host (`wiggum start --queue`) and 1, then
// 2, then 4 `wiggum worker` processes (--concurrency 1 each) on the same number of tasks, each on a
// git workdir of its own whose origin is a bare remote. The agent sleeps, so the work scales with the
// workers however few cores the machine has: the speed-up is the queue path's, not the CPU's.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../lib/cleanup.mjs';
import { Daemon } from '../lib/daemon.mjs';
import { makeVault } from '../lib/fixtures.mjs';
import { startRedis } from '../lib/redis.mjs';
import { sleep, summarize, wallMs } from '../lib/stats.mjs';

const GIT_ID = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];
const git = (cwd, args) => execFileSync('git', [...GIT_ID, ...args], { cwd, encoding: 'utf8' }).trim();

/**
 * The agent, a `command` harness: writes when it started ($EPOCHREALTIME, before any fork) and
 * where it ran (its working folder names the worker), sleeps BENCH_SLEEP_S, commits a file of its
 * own, writes when it ended, and claims completion from iteration BENCH_DONE_AT on.
 */
function writeAgent(dir) {
  const path = join(dir, 'scaleout-agent.sh');
  writeFileSync(
    path,
    [
      '#!/bin/bash',
      'm="$BENCH_MARKS/$WIGGUM_TASK_ID.$WIGGUM_ITERATION"',
      'printf \'%s\\n\' "$EPOCHREALTIME" > "$m.start"',
      'pwd -P > "$m.cwd"',
      // The prompt comes on stdin: read it, as an agent does, so the harness never meets a full pipe.
      'cat > /dev/null',
      'sleep "$BENCH_SLEEP_S"',
      'printf \'iteration %s of %s\\n\' "$WIGGUM_ITERATION" "$WIGGUM_TASK_ID" >> "work-$WIGGUM_TASK_ID.txt"',
      'git add "work-$WIGGUM_TASK_ID.txt" && git -c user.name=agent -c user.email=agent@example.com -c commit.gpgsign=false commit -qm "work of $WIGGUM_TASK_ID, iteration $WIGGUM_ITERATION" || exit 1',
      'printf \'%s\\n\' "$EPOCHREALTIME" > "$m.end"',
      'echo "worked on iteration $WIGGUM_ITERATION"',
      '[ "$WIGGUM_ITERATION" -ge "$BENCH_DONE_AT" ] && printf \'<promise>%s</promise>\\n\' "$WIGGUM_PROMISE"',
      'exit 0',
      '',
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  return path;
}

/** One config for the host and every worker: the agent as the default harness, the code folder allowed. */
function config({ agent, marks, code, sleepS, doneAt }) {
  return [
    'vault:',
    `  allowed_workdirs: [${code}]`,
    'harness:',
    '  default: bench',
    'harnesses:',
    '  bench:',
    '    kind: command',
    `    command: ${agent}`,
    '    args: []',
    '    env:',
    `      BENCH_MARKS: ${marks}`,
    `      BENCH_SLEEP_S: "${sleepS}"`,
    `      BENCH_DONE_AT: "${doneAt}"`,
    '',
  ].join('\n');
}

const taskText = (id, workdir, maxIterations) =>
  `---\ntitle: ${id}\nworkdir: ${workdir}\nmax_iterations: ${maxIterations}\n---\n# ${id}\n\nAppend a line to work-${id}.txt and commit it.\n`;

/**
 * A template remote (bare, one commit on main) and the host's clone of it, made once with git; each
 * task's pair is a copy of both, the clone's origin pointed at its own copy by rewriting its
 * .git/config (no git spawn per task: 120 repositories in well under a second).
 */
function makeTemplate(root) {
  const remote = join(root, 'template.git');
  const clone = join(root, 'template');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  execFileSync('git', ['clone', '-q', remote, clone], { stdio: 'ignore' });
  git(clone, ['checkout', '-q', '-B', 'main']);
  writeFileSync(join(clone, 'README.md'), '# scale-out bench repository\n');
  git(clone, ['add', '-A']);
  git(clone, ['commit', '-qm', 'initial']);
  git(clone, ['push', '-q', 'origin', 'main']);
  return { remote, clone };
}

function copyRepo(template, remotes, code, id) {
  const remote = join(remotes, `${id}.git`);
  const workdir = join(code, id);
  cpSync(template.remote, remote, { recursive: true });
  cpSync(template.clone, workdir, { recursive: true });
  const gitConfig = join(workdir, '.git', 'config');
  const text = readFileSync(gitConfig, 'utf8');
  if (!text.includes(template.remote))
    throw new Error(`the template clone's .git/config does not name ${template.remote}`);
  writeFileSync(gitConfig, text.split(template.remote).join(remote));
  return { remote, workdir };
}

/** A `wiggum worker` in a folder of its own (its config there, its HOME there), outside the vault. */
async function startWorker(root, name, queueUrl, configYaml) {
  const dir = join(root, 'workers', name);
  mkdirSync(join(dir, '.wiggum'), { recursive: true });
  mkdirSync(join(dir, 'home'), { recursive: true });
  writeFileSync(join(dir, '.wiggum', 'config.yaml'), configYaml);
  // The identity the worker commits with when the agent leaves work uncommitted.
  writeFileSync(join(dir, 'home', '.gitconfig'), `[user]\n\temail = ${name}@example.com\n\tname = ${name}\n`);
  const worker = Daemon.spawnCli(['worker', '--queue', queueUrl, '--concurrency', '1'], {
    logFile: join(root, `${name}.log`),
    cwd: dir,
    env: { HOME: join(dir, 'home') },
    name: `worker ${name}`,
  });
  await worker.waitForLog(/"event":"worker.started"/);
  return { name, dir, worker };
}

const readMark = (marks, file) => {
  const path = join(marks, file);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : null;
};
const markMs = (marks, file) => Number(readMark(marks, file)?.replace(',', '.')) * 1000;

/**
 * One round: `workers` workers, `tasks` tasks dropped at once into Approved/, waited for in Done/
 * (polled every 20 ms). Then the workers are stopped and what the figure stands on is checked.
 */
async function round(setup, { workers, tasks, doneAt, timeoutMs }) {
  const { root, vault, host, marks, remotes, code, template, queueUrl, configYaml } = setup;
  const ids = Array.from({ length: tasks }, (_, i) => `w${workers}-${String(i + 1).padStart(2, '0')}`);
  const repos = new Map(ids.map((id) => [id, copyRepo(template, remotes, code, id)]));
  const started = [];
  for (let i = 1; i <= workers; i += 1) started.push(await startWorker(root, `w${workers}-${i}`, queueUrl, configYaml));
  let wallMsTaken;
  const dropMs = wallMs();
  try {
    const t0 = performance.now();
    for (const id of ids)
      writeFileSync(join(vault.approved, `${id}.md`), taskText(id, repos.get(id).workdir, doneAt + 2));
    for (;;) {
      const elapsed = performance.now() - t0;
      if (ids.every((id) => existsSync(join(vault.done, `${id}.md`)))) {
        wallMsTaken = elapsed;
        break;
      }
      const rejected = ids.find((id) => existsSync(join(vault.rejected, `${id}.md`)));
      if (rejected !== undefined)
        throw new Error(`${rejected} was rejected:\n${readFileSync(join(vault.rejected, `${rejected}.md`), 'utf8')}`);
      if (host.exitCode !== undefined)
        throw new Error(`the vault host exited (${host.exitCode}):\n${host.log().slice(-2000)}`);
      const dead = started.find((w) => w.worker.exitCode !== undefined);
      if (dead !== undefined)
        throw new Error(`worker ${dead.name} exited (${dead.worker.exitCode}):\n${dead.worker.log().slice(-2000)}`);
      if (elapsed > timeoutMs) {
        const left = ids.filter((id) => !existsSync(join(vault.done, `${id}.md`)));
        throw new Error(
          `${left.length} of ${tasks} tasks not in Done/ after ${timeoutMs} ms:\n${host.log().slice(-2000)}`,
        );
      }
      await sleep(20);
    }
  } finally {
    await Promise.all(started.map((w) => w.worker.stop()));
  }

  // When the host queued each task: its `queue.dispatched` line (pino's ISO time, ms resolution).
  const dispatched = new Map();
  for (const line of host.lines())
    if (line.event === 'queue.dispatched' && typeof line.jobId === 'string' && line.jobId.startsWith('task-'))
      dispatched.set(line.jobId.slice('task-'.length), Date.parse(line.time));

  const problems = [];
  const enqueueToStart = [];
  const dropToEnqueue = [];
  const runsByWorker = new Map(started.map((w) => [w.dir, []]));
  for (const id of ids) {
    const runs = readdirSync(marks).filter((file) => file.startsWith(`${id}.`) && file.endsWith('.start'));
    if (runs.length !== doneAt) problems.push(`${id}: ${runs.length} agent runs, ${doneAt} expected`);
    const firstStart = markMs(marks, `${id}.1.start`);
    const enqueued = dispatched.get(id);
    if (enqueued === undefined) problems.push(`${id}: no queue.dispatched line in the host's log`);
    else {
      enqueueToStart.push(firstStart - enqueued);
      dropToEnqueue.push(enqueued - dropMs);
    }
    for (let it = 1; it <= doneAt; it += 1) {
      const cwd = readMark(marks, `${id}.${it}.cwd`) ?? '';
      const worker = started.find((w) => cwd.startsWith(`${w.dir}/`));
      if (worker === undefined) problems.push(`${id} iteration ${it} ran in ${cwd || 'nowhere'}, not under a worker`);
      else
        runsByWorker
          .get(worker.dir)
          .push({ start: markMs(marks, `${id}.${it}.start`), end: markMs(marks, `${id}.${it}.end`) });
    }
    // The work reached the task's remote: the worker pushed the task's branch.
    const subjects = git(repos.get(id).remote, ['log', '--all', '--format=%s']);
    if (!subjects.includes(`work of ${id}, iteration ${doneAt}`))
      problems.push(`${id}: its last commit is not on its remote`);
  }
  // On a worker kept busy, the gap between one agent's end and the next agent's start is what the
  // queue path costs per run: push, progress, the host's write, the ending, the next job, the clone.
  const handoffMs = [];
  for (const runs of runsByWorker.values()) {
    runs.sort((a, b) => a.start - b.start);
    for (let k = 1; k < runs.length; k += 1) handoffMs.push(runs[k].start - runs[k - 1].end);
    if (runs.some((run, k) => k > 0 && run.start < runs[k - 1].end))
      problems.push('two agents overlapped on one worker');
  }
  const perWorker = [...runsByWorker.values()].map((runs) => runs.length);
  if (perWorker.some((n) => n === 0)) problems.push(`a worker ran nothing (runs per worker: ${perWorker.join(', ')})`);
  const agentMs = [...runsByWorker.values()].flat().map((run) => run.end - run.start);

  const floorMs = (tasks * doneAt * setup.sleepS * 1000) / workers;
  return {
    workers,
    tasks,
    wallMs: wallMsTaken,
    ratePerS: tasks / (wallMsTaken / 1000),
    floorMs,
    toFloor: wallMsTaken / floorMs,
    enqueueToStart: summarize(enqueueToStart),
    dropToEnqueue: summarize(dropToEnqueue),
    handoff: summarize(handoffMs),
    agent: summarize(agentMs),
    runsPerWorker: perWorker,
    problems,
  };
}

/**
 * The phase: one redis-server and one vault host for all rounds; per round fresh workers, fresh
 * repositories and fresh task ids. `sleepS` is the agent's work per iteration, `doneAt` the
 * iteration that completes each task.
 */
export async function scaleout({ workerCounts = [1, 2, 4], tasks = 40, sleepS = 1, doneAt = 1 } = {}) {
  const root = tempDir('scaleout');
  const marks = join(root, 'marks');
  const remotes = join(root, 'remotes');
  const code = join(root, 'code');
  for (const dir of [marks, remotes, code]) mkdirSync(dir, { recursive: true });
  const template = makeTemplate(root);
  const configYaml = config({ agent: writeAgent(root), marks, code, sleepS, doneAt });
  const vault = makeVault(join(root, 'vault'), configYaml);
  const redis = await startRedis();
  const host = Daemon.start(vault.root, { args: ['--queue', redis.url], logDir: root });
  const setup = { root, vault, host, marks, remotes, code, template, queueUrl: redis.url, configYaml, sleepS };
  const rounds = [];
  try {
    await host.waitForLog(/"event":"daemon.started"/);
    for (const workers of workerCounts) {
      // Bounded generously: 5× the floor plus a minute; a round stops early only on a failure.
      const timeoutMs = 5 * ((tasks * doneAt * sleepS * 1000) / workers) + 60_000;
      rounds.push(await round(setup, { workers, tasks, doneAt, timeoutMs }));
    }
  } finally {
    await host.stop();
    await redis.stop();
  }
  const one = rounds.find((r) => r.workers === 1);
  for (const r of rounds) {
    r.speedUp = one === undefined ? NaN : one.wallMs / r.wallMs;
    r.efficiency = r.speedUp / r.workers;
  }
  return {
    tasks,
    sleepS,
    doneAt,
    rounds,
    problems: rounds.flatMap((r) => r.problems.map((p) => `${r.workers} workers: ${p}`)),
  };
}
