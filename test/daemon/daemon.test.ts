import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseTask } from '../../src/task/parse.js';
import { CLI, REPO_ROOT, runCli, spawn } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { historyOf } from '../helpers/history.js';
import { isEvent, isEventOn } from '../helpers/log-events.js';
import { isRunning } from '../helpers/process-state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { fakeRuns, makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { NO_TOTAL_BUDGET, waitFor, waitForFile } from '../helpers/wait.js';

const TASK = '---\ntitle: Two stories\n---\n- [ ] US-001 One\n- [ ] US-002 Two\n';

const daemons = drainedAfterEach();

function start(vault: TestVault, args: string[] = [], env: NodeJS.ProcessEnv = {}): DaemonProcess {
  const daemon = DaemonProcess.start(vault.root, args, env);
  daemons.push(daemon);
  return daemon;
}

function loopOf(file: string): Record<string, unknown> {
  const parsed = parseTask(file, readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(`${file} does not parse`);
  return parsed.task.frontmatter.persistence_loop as Record<string, unknown>;
}

const doneCount = (vault: TestVault): number =>
  readdirSync(vault.layout.done).filter((name) => name.endsWith('.md')).length;
const isDone = (id: string) => isEvent('task.done', { taskId: id });

describe('the daemon', () => {
  test('runs a dropped task to Done/, writes Dashboard.md and status.json, drains on SIGTERM with exit 0', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const daemon = start(vault);
    await daemon.ready();
    vault.task('first', TASK);
    await daemon.waitForLog(isDone('first'), 'first to be done');
    expect(loopOf(join(vault.layout.done, 'first.md'))).toMatchObject({ status: 'done', iteration: 2 });
    await waitFor(
      () =>
        existsSync(join(vault.root, 'Dashboard.md')) &&
        readFileSync(join(vault.root, 'Dashboard.md'), 'utf8').includes('[[Done/first]]'),
      'the dashboard',
    );
    const status = await runCli(['status', '--json', '--vault', vault.root]);
    expect(JSON.parse(status.stdout)).toMatchObject({
      counts: { approved: 0, done: 1, rejected: 0 },
      daemon: { lifecycle: 'running' },
    });
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(vault.layout.lockFile)).toBe(false);
  });

  test("temp files an interrupted write left in Approved/ are removed at start; a live writer's are not", async () => {
    const vault = await makeVault();
    const dead = spawnSync('/bin/true').pid;
    const stale = join(vault.layout.approved, `.first.md.${dead}.0a1b2c3d.tmp`);
    const live = join(vault.layout.approved, `.first.md.${process.pid}.0a1b2c3d.tmp`);
    writeFileSync(stale, '---\ntitle: half\n');
    writeFileSync(live, '---\ntitle: half\n');
    const daemon = start(vault);
    await daemon.ready();
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
  });

  test('a folder named like a task in Approved/ is left alone, and the tasks beside it run', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    mkdirSync(join(vault.layout.approved, 'folder.md'));
    const daemon = start(vault);
    await daemon.ready();
    vault.task('beside', TASK);
    await daemon.waitForLog(isDone('beside'), 'the task beside the folder to be done');
    expect(existsSync(join(vault.layout.approved, 'folder.md'))).toBe(true);
    expect(existsSync(join(vault.layout.rejected, 'folder.md'))).toBe(false);
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
  });

  test('the example vault: its samples end in Done/ and Rejected/, and a half-done move is finished at start', async () => {
    const vault = await makeVault();
    cpSync(join(REPO_ROOT, 'vault-example', 'Approved'), vault.layout.approved, { recursive: true });
    // A task whose final state was written just before a crash, but which was never moved.
    vault.task(
      'halfway',
      '---\nstate: Rejected\npersistence_loop:\n  status: rejected\n  iteration: 2\n  max_iterations: 5\n---\nbody\n',
    );
    mkdirSync(vault.layout.taskLocks, { recursive: true });
    writeFileSync(join(vault.layout.taskLocks, 'halfway.ending'), 'rejected\n');
    const daemon = start(vault, ['--exit-when-idle']);
    expect((await daemon.exited).code).toBe(0);
    expect(readdirSync(vault.layout.done).sort()).toEqual(['add-dark-mode.md', 'write-release-notes.md']);
    expect(readdirSync(vault.layout.rejected).sort()).toEqual(['halfway.md', 'migrate-billing-db.md']);
    expect(readdirSync(vault.layout.approved)).toEqual([]);
    expect(readFileSync(join(vault.root, 'Dashboard.md'), 'utf8')).toContain('| 0 | 2 | 2 |');
    expect(existsSync(join(vault.layout.sessions, 'halfway'))).toBe(false);
    expect(existsSync(join(vault.layout.taskLocks, 'halfway.ending'))).toBe(false);
  });

  test(
    '200 tasks dropped at once, some while the daemon starts: each runs exactly once, none is lost',
    async () => {
      const vault = await makeVault({ fake: { FAKE_COMPLETE_AFTER: '1' }, config: { daemon: { concurrency: 4 } } });
      for (let i = 0; i < 50; i += 1) vault.task(`early-${i}`, TASK);
      const daemon = start(vault);
      for (let i = 0; i < 150; i += 1) vault.task(`late-${i}`, TASK);
      // Each task done moves the wait on; only two minutes with none done fails it.
      await daemon.waitForCount(isEvent('task.done'), 200, 'tasks done');
      expect(doneCount(vault)).toBe(200);
      expect(readdirSync(vault.layout.approved)).toEqual([]);
      const runsPerTask = [...fakeRuns(vault).values()];
      expect(runsPerTask).toHaveLength(200);
      expect(runsPerTask.every((runs) => runs === 1)).toBe(true);
      const queued = daemon.lines.filter(isEvent('task.queued'));
      expect(new Set(queued.map((line) => line.taskId)).size).toBe(200);
      expect(queued).toHaveLength(200);
    },
    NO_TOTAL_BUDGET,
  );

  test('a stop flag stops a running task at once; removing it resumes from the checkpoint', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '2' } });
    const daemon = start(vault);
    await daemon.ready();
    const file = vault.task('pausable', TASK);
    await waitForFile(join(vault.marks, 'run-2'));
    writeFileSync(join(vault.layout.approved, 'pausable.stop'), '');
    await daemon.waitForEvent('task.stopped', { taskId: 'pausable', reason: 'stop-flag', iterations: 1 });
    expect(loopOf(file)).toMatchObject({ status: 'stopped', iteration: 1 });
    const status = JSON.parse((await runCli(['status', '--json', '--vault', vault.root])).stdout) as {
      tasks: { id: string; state: string }[];
    };
    expect(status.tasks).toContainEqual(expect.objectContaining({ id: 'pausable', state: 'stopped' }));
    rmSync(join(vault.layout.approved, 'pausable.stop'));
    await daemon.waitForLog(isDone('pausable'), 'the task to resume and finish');
    expect(
      historyOf(vault.layout.sessions, 'pausable')
        .filter((r) => r.outcome !== 'stopped')
        .map((r) => r.iteration),
    ).toEqual([1, 2]);
  });

  test('wiggum stop and wiggum resume write and remove the flag', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '1' } });
    const daemon = start(vault);
    await daemon.ready();
    vault.task('by-cli', TASK);
    await waitForFile(join(vault.marks, 'run-1'));
    expect((await runCli(['stop', 'by-cli', '--vault', vault.root])).code).toBe(0);
    await daemon.waitForEvent('task.stopped', { taskId: 'by-cli', reason: 'stop-flag' });
    expect((await runCli(['resume', 'by-cli', '--vault', vault.root])).code).toBe(0);
    await daemon.waitForLog(isDone('by-cli'), 'the task to finish');
  });

  test('against a running daemon: context add reaches the next iteration, status ID answers', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '1' } });
    const daemon = start(vault);
    await daemon.ready();
    vault.task('guided', TASK);
    await waitForFile(join(vault.marks, 'run-1'));
    expect((await runCli(['context', 'add', 'guided', 'USE-TABS-NOTE', '--vault', vault.root])).code).toBe(0);
    writeFileSync(join(vault.layout.approved, 'guided.stop'), '');
    await daemon.waitForEvent('task.stopped', { taskId: 'guided', reason: 'stop-flag' });
    rmSync(join(vault.layout.approved, 'guided.stop'));
    await daemon.waitForLog(isDone('guided'), 'the task to finish');
    expect(readFileSync(join(vault.marks, 'run-2'), 'utf8')).toContain('USE-TABS-NOTE');
    const one = await runCli(['status', 'guided', '--vault', vault.root]);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('state done');
  });

  test('against a running daemon: retry sends a Rejected task back and it really runs again', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const daemon = start(vault);
    await daemon.ready();
    vault.task('fails', '---\ntitle: Fails\nmax_iterations: 1\n---\n- [ ] US-001 One\n- [ ] US-002 Two\n');
    await waitForFile(join(vault.layout.rejected, 'fails.md'));
    const retried = await runCli(['retry', 'fails', '--vault', vault.root]);
    expect(retried.code).toBe(0);
    // Sent back with a fresh budget of one iteration and its memory (US-001 passes), it really runs: one more iteration finishes it.
    await daemon.waitForLog(isDone('fails'), 'the retried task to run again and finish');
    expect(
      historyOf(vault.layout.sessions, 'fails')
        .filter((r) => r.outcome !== 'stopped')
        .map((r) => r.storiesPassing),
    ).toEqual([1, 2]);
  });

  test('the vault STOP file holds every task before its next iteration and starts nothing new', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    writeFileSync(join(vault.root, 'STOP'), '');
    const daemon = start(vault);
    await daemon.ready();
    vault.task('held', TASK);
    await daemon.waitForLog(isEventOn('task.queued', 'held.md'), 'the task to be queued');
    const status = JSON.parse((await runCli(['status', '--json', '--vault', vault.root])).stdout) as { held: boolean };
    expect(status.held).toBe(true);
    expect(readdirSync(vault.marks)).toEqual([]);
    rmSync(join(vault.root, 'STOP'));
    await daemon.waitForLog(isDone('held'), 'the task to run once STOP is gone');
  });

  test('SIGTERM mid-iteration, then a restart: resumed, nothing lost or doubled', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '2' } });
    const first = start(vault);
    await first.ready();
    const file = vault.task('survivor', TASK);
    await waitForFile(join(vault.marks, 'run-2'));
    first.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    expect(loopOf(file)).toMatchObject({ status: 'interrupted', iteration: 1 });
    const second = start(vault);
    await second.waitForLog(isDone('survivor'), 'the resumed task to finish');
    expect(
      historyOf(vault.layout.sessions, 'survivor')
        .filter((r) => r.outcome !== 'stopped')
        .map((r) => [r.iteration, r.storiesPassing]),
    ).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  test('SIGKILL mid-iteration, then a restart: the stale lock is taken over and the task resumes', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '2' } });
    const first = start(vault);
    await first.ready();
    vault.task('phoenix', TASK);
    await waitForFile(join(vault.marks, 'run-2'));
    first.kill('SIGKILL');
    await first.exited;
    expect(existsSync(vault.layout.lockFile)).toBe(true);
    const second = start(vault);
    await second.waitForEvent('vault-lock.taken-over');
    await second.waitForLog(isDone('phoenix'), 'the task to finish');
    expect(historyOf(vault.layout.sessions, 'phoenix').map((r) => r.iteration)).toEqual([1, 2]);
  });

  test('a second daemon on the same vault is refused with exit 2, naming the owner', async () => {
    const vault = await makeVault();
    const first = start(vault);
    await first.ready();
    const second = start(vault);
    const exit = await second.exited;
    expect(exit.code).toBe(2);
    expect(second.stderr).toContain(`another wiggum (pid ${first.child.pid}`);
  });

  test('a second wiggum run of a task the daemon runs is refused with exit 2 naming the daemon, and leaves its agent alone', async () => {
    const gates = tempDir('wiggum-gates-');
    const gated = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: gates } });
    const daemon = start(gated);
    await daemon.ready();
    const file = gated.task('owned', TASK);
    await waitForFile(join(gated.marks, 'run-1'));
    const second = await runCli(['run', file, '--no-stream']);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`pid ${daemon.child.pid}`);
    expect(second.stderr).toContain('task owned is already being run');
    // The daemon's agent was not killed as an orphan: opened, it finishes the task.
    writeFileSync(join(gates, 'go-1'), '');
    writeFileSync(join(gates, 'go-2'), '');
    await daemon.waitForLog(isDone('owned'), 'the task to finish');
    expect(historyOf(gated.layout.sessions, 'owned').map((r) => r.outcome)).not.toContain('stopped');
  });

  test('a task that a wiggum run is running is taken by the daemon only once that run ends', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '1' } });
    const file = vault.task('foreground', TASK);
    const run = spawn(process.execPath, [CLI, 'run', file, '--no-stream'], { stdio: 'ignore' });
    await waitForFile(join(vault.marks, 'run-1'));
    const daemon = start(vault);
    await daemon.waitForEvent('task.busy-elsewhere', { taskId: 'foreground' });
    expect(existsSync(join(vault.marks, 'run-2'))).toBe(false);
    run.kill('SIGTERM');
    await new Promise((resolve) => run.once('exit', resolve));
    await daemon.waitForLog(isDone('foreground'), 'the daemon to take the task over and finish it');
    expect(
      historyOf(vault.layout.sessions, 'foreground')
        .filter((r) => r.outcome !== 'stopped')
        .map((r) => r.iteration),
    ).toEqual([1, 2]);
  });

  test('a stop flag that exists before the task arrives keeps it from starting; removing it lets it run', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const daemon = start(vault);
    await daemon.ready();
    writeFileSync(join(vault.layout.approved, 'early.stop'), '');
    vault.task('early', TASK);
    // A task dropped after the flagged one has run to Done/: the daemon has seen the flagged one.
    vault.task('probe', TASK);
    await daemon.waitForLog(isDone('probe'), 'the probe task');
    expect(existsSync(join(vault.layout.sessions, 'early'))).toBe(false);
    expect(readFileSync(join(vault.layout.approved, 'early.md'), 'utf8')).toBe(TASK);
    rmSync(join(vault.layout.approved, 'early.stop'));
    await daemon.waitForLog(isDone('early'), 'the task to run once its flag is gone');
  });

  test('a malformed task goes to Rejected/ with its text intact and a report naming file and line; the daemon goes on', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const daemon = start(vault);
    await daemon.ready();
    const broken = '---\ntitle: fine\nmax_iterations: [unclosed\n---\nmy precious notes\n';
    vault.task('broken', broken);
    await waitForFile(join(vault.layout.rejected, 'broken.md'));
    const rejected = readFileSync(join(vault.layout.rejected, 'broken.md'), 'utf8');
    expect(rejected.startsWith(broken)).toBe(true);
    expect(rejected).toContain('## Failure report');
    expect(rejected).toMatch(/Approved\/broken\.md:[34]:\d+: \S/);
    vault.task('after', TASK);
    await daemon.waitForLog(isDone('after'), 'the next task');
  });

  test('a symlinked task is refused with a message and never run', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const outside = join(vault.root, 'outside.md');
    writeFileSync(outside, TASK);
    const daemon = start(vault);
    await daemon.ready();
    symlinkSync(outside, join(vault.layout.approved, 'link.md'));
    await daemon.waitForLog(isEventOn('watcher.link-refused', 'link.md'), 'the refusal');
    vault.task('probe', TASK);
    await daemon.waitForLog(isDone('probe'), 'the probe task');
    expect(daemon.lines.some(isEventOn('task.queued', 'link.md'))).toBe(false);
    expect(readFileSync(outside, 'utf8')).toBe(TASK);
    expect(existsSync(join(vault.layout.sessions, 'link'))).toBe(false);
  });

  test('a task deleted while it runs is stopped cleanly, its memory kept', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '2' } });
    const daemon = start(vault);
    await daemon.ready();
    const file = vault.task('doomed', TASK);
    await waitForFile(join(vault.marks, 'run-2'));
    rmSync(file);
    await daemon.waitForEvent('task.stopped', { taskId: 'doomed', reason: 'task-gone' });
    expect(existsSync(join(vault.layout.sessions, 'doomed', 'prd.json'))).toBe(true);
    // Its agent was stopped with it: nothing is left running in the task's session.
    expect(existsSync(join(vault.layout.sessions, 'doomed', 'harness.json'))).toBe(false);
  });

  test('a user edit during a run is kept and reaches the next iteration', async () => {
    const vault = await makeVault({
      fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '1' },
      config: { daemon: { rescan_interval: '30s' } },
    });
    const daemon = start(vault);
    await daemon.ready();
    const file = vault.task('edited', TASK);
    await waitForFile(join(vault.marks, 'run-1'));
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .replace('title: Two stories', 'title: Two stories # my note')
        .concat('\nAlso: keep it small.\n'),
    );
    // Stop the hung first run; the resumed run reads the edited body.
    writeFileSync(join(vault.layout.approved, 'edited.stop'), '');
    await daemon.waitForEvent('task.stopped', { taskId: 'edited', reason: 'stop-flag' });
    rmSync(join(vault.layout.approved, 'edited.stop'));
    await daemon.waitForLog(isDone('edited'), 'the task to finish');
    const done = readFileSync(join(vault.layout.done, 'edited.md'), 'utf8');
    expect(done).toContain('title: Two stories # my note');
    expect(done).toContain('Also: keep it small.');
    expect(readFileSync(join(vault.marks, 'run-2'), 'utf8')).toContain('Also: keep it small.');
  });

  test('a half-written file is neither run nor rejected before it is complete', async () => {
    const vault = await makeVault({ fake: { FAKE_COMPLETE_AFTER: '1' }, config: { daemon: { settle: '500ms' } } });
    const daemon = start(vault);
    await daemon.ready();
    const file = join(vault.layout.approved, 'slow.md');
    writeFileSync(file, '---\ntitle: Written slowly\nmax_iter');
    // A task dropped after the half-written one has settled and run: the daemon has looked at the
    // half file well past its settle time, and still has not taken it.
    vault.task('probe', TASK);
    await daemon.waitForLog(isDone('probe'), 'the probe task');
    expect(daemon.lines.some(isEventOn('task.queued', 'slow.md'))).toBe(false);
    writeFileSync(file, '---\ntitle: Written slowly\nmax_iterations: 3\n---\nbody\n');
    await daemon.waitForLog(isDone('slow'), 'the completed file to run');
    expect(readdirSync(vault.layout.rejected)).toEqual([]);
    expect(daemon.lines.filter(isEventOn('task.queued', 'slow.md'))).toHaveLength(1);
  });

  test('editor-style atomic saves of a running task neither restart, cancel nor double it', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '1' } });
    const daemon = start(vault);
    await daemon.ready();
    const file = vault.task('saved', TASK);
    await waitForFile(join(vault.marks, 'run-1'));
    const text = readFileSync(file, 'utf8');
    // vim: a swap file, a backup, then the new content renamed over the old.
    writeFileSync(join(vault.layout.approved, '.saved.md.swp'), 'swap');
    writeFileSync(join(vault.layout.approved, 'saved.md~'), text);
    writeFileSync(join(vault.layout.approved, '.saved.md.tmp-123'), `${text}\nedited\n`);
    renameSync(join(vault.layout.approved, '.saved.md.tmp-123'), file);
    // Another editor: delete, then write again.
    rmSync(file);
    writeFileSync(file, `${text}\nedited twice\n`);
    rmSync(join(vault.layout.approved, '.saved.md.swp'));
    rmSync(join(vault.layout.approved, 'saved.md~'));
    writeFileSync(join(vault.layout.approved, 'saved.stop'), '');
    await daemon.waitForEvent('task.stopped', { taskId: 'saved', reason: 'stop-flag' });
    expect(daemon.lines.filter(isEventOn('task.queued', 'saved.md'))).toHaveLength(1);
    expect(
      daemon.lines.some(
        (line) =>
          isEvent('task.file-gone', { taskId: 'saved' })(line) ||
          isEvent('task.stopped', { taskId: 'saved', reason: 'task-gone' })(line),
      ),
    ).toBe(false);
    expect(readFileSync(file, 'utf8')).toContain('edited twice');
  });

  test('SIGHUP reloads the config; a bad one is logged and the old one kept', async () => {
    const vault = await makeVault();
    const daemon = start(vault);
    await daemon.ready();
    const configFile = join(vault.root, '.wiggum', 'config.yaml');
    const good = readFileSync(configFile, 'utf8');
    writeFileSync(configFile, `${good}\ndaemon:\n  concurrency: nope\n`);
    daemon.kill('SIGHUP');
    await daemon.waitForEvent('config.reload-refused');
    writeFileSync(configFile, `${good}\ndaemon:\n  concurrency: 7\n`);
    daemon.kill('SIGHUP');
    await daemon.waitForEvent('config.reloaded');
    await waitFor(
      () =>
        existsSync(vault.layout.statusFile) &&
        (JSON.parse(readFileSync(vault.layout.statusFile, 'utf8')) as { concurrency: number }).concurrency === 7,
      'the new concurrency in status.json',
    );
  });

  test('a second SIGTERM kills the agents and exits at once; the next start resumes', async () => {
    const vault = await makeVault({
      fake: { FAKE_STORY_PER_RUN: '1', FAKE_HANG_ON_RUN: '1', FAKE_IGNORE_TERM: '1' },
      config: { harness: { stop_grace: '3s' } },
    });
    const daemon = start(vault);
    await daemon.ready();
    vault.task('stubborn', TASK);
    await waitForFile(join(vault.marks, 'run-1'));
    const record = join(vault.layout.sessions, 'stubborn', 'harness.json');
    await waitFor(
      () => existsSync(record) && (JSON.parse(readFileSync(record, 'utf8')) as { pid: number | null }).pid !== null,
      'the harness pid to be recorded',
    );
    const { pid } = JSON.parse(readFileSync(record, 'utf8')) as { pid: number };
    daemon.kill('SIGTERM');
    await daemon.waitForEvent('daemon.draining');
    daemon.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(3);
    // The harness ignored SIGTERM, but not the SIGKILL sent before the forced exit.
    await waitFor(() => !isRunning(pid), 'the harness to be gone');
    const next = start(vault);
    await next.waitForLog(isDone('stubborn'), 'the task to finish');
  });

  test('under systemd each line carries its syslog priority', async () => {
    const vault = await makeVault();
    const daemon = start(vault, [], { JOURNAL_STREAM: '8:12345' });
    await daemon.ready();
    daemon.kill('SIGTERM');
    await daemon.exited;
    const lines = daemon.rawStdout.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(line).toMatch(/^<[2-7]>\{"level":/);
    expect(lines.find((line) => line.includes('"event":"daemon.started"'))).toMatch(/^<6>/);
  });
});
