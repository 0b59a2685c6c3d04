import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import type { DaemonLine } from '../helpers/daemon.js';
import { isEvent } from '../helpers/log-events.js';
import { tempDir } from '../helpers/temp-dir.js';
import { FAKE_AGENT, makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { NO_TOTAL_BUDGET, waitFor } from '../helpers/wait.js';

/**
 * The order of work with the real daemon and the fake agent: depends_on chains, a rejected
 * dependency, a cycle, an unknown id, not_before, and priority at concurrency 1.
 */
const daemons = drainedAfterEach();

function start(vault: TestVault): DaemonProcess {
  const daemon = DaemonProcess.start(vault.root);
  daemons.push(daemon);
  return daemon;
}

/** A one-story task the fake agent completes at its first run; `extra` goes into its frontmatter. */
function write(vault: TestVault, id: string, extra = ''): void {
  // Written whole then renamed, as a person's editor or a script does: never read half written.
  const tmp = join(vault.root, 'Approved', `.${id}.md.tmp`);
  writeFileSync(tmp, `---\ntitle: ${id}\n${extra}---\n- [ ] US-001 Do ${id}\n`);
  renameSync(tmp, join(vault.root, 'Approved', `${id}.md`));
}

const started = (daemon: DaemonProcess): string[] =>
  daemon.lines.filter((line) => line.event === 'loop.started').map((line) => String(line.taskId));
const indexOf = (daemon: DaemonProcess, match: (line: DaemonLine) => boolean): number => daemon.lines.findIndex(match);

describe('the order of work', () => {
  test(
    'a chain dropped in reverse runs in order; status and the Dashboard say what each waits for',
    async () => {
      const gates = tempDir('wiggum-gates-');
      const vault = await makeVault({
        fake: { FAKE_COMPLETE_AFTER: '1', FAKE_GATE_DIR: gates },
        config: { daemon: { concurrency: 4 } },
      });
      const daemon = start(vault);
      await daemon.ready();
      write(vault, 'chain-c', 'depends_on: [chain-b]\n');
      write(vault, 'chain-b', 'depends_on: [chain-a]\n');
      write(vault, 'chain-a');
      await daemon.waitForEvent('loop.started', { taskId: 'chain-a' });
      await daemon.waitForEvent('task.order-waits', { taskId: 'chain-b' });
      await daemon.waitForEvent('task.order-waits', { taskId: 'chain-c' });

      // While chain-a runs (its agent held at the gate), the others wait and say for what.
      await waitFor(async () => {
        const status = await runCli(['status', '--vault', vault.root]);
        return /chain-b: waiting for chain-a/.test(status.stdout) && /chain-c: waiting for chain-b/.test(status.stdout);
      }, 'status to show the waits');
      const json = JSON.parse((await runCli(['status', '--json', '--vault', vault.root])).stdout) as {
        tasks: { name: string; state: string; why?: string }[];
      };
      expect(json.tasks.find((task) => task.name === 'chain-b.md')).toMatchObject({
        state: 'waiting-on-dependency',
        why: expect.stringContaining('waiting for chain-a') as unknown,
      });
      await waitFor(
        () =>
          /\[\[Approved\/chain-b\]\]: waiting for chain-a/.test(
            existsSync(join(vault.root, 'Dashboard.md')) ? readFileSync(join(vault.root, 'Dashboard.md'), 'utf8') : '',
          ),
        'the Dashboard to show the wait',
      );

      writeFileSync(join(gates, 'go-1'), '');
      await daemon.waitForEvent('task.done', { taskId: 'chain-c' });
      expect(started(daemon)).toEqual(['chain-a', 'chain-b', 'chain-c']);
      // Each starts only after the one it depends on is done.
      expect(indexOf(daemon, isEvent('loop.started', { taskId: 'chain-b' }))).toBeGreaterThan(
        indexOf(daemon, isEvent('task.done', { taskId: 'chain-a' })),
      );
      expect(indexOf(daemon, isEvent('loop.started', { taskId: 'chain-c' }))).toBeGreaterThan(
        indexOf(daemon, isEvent('task.done', { taskId: 'chain-b' })),
      );
    },
    NO_TOTAL_BUDGET,
  );

  test(
    'a rejected dependency, a cycle and an unknown id: each task involved is said blocked, and none runs',
    async () => {
      const vault = await makeVault({
        fake: { FAKE_COMPLETE_AFTER: '1' },
        config: {
          daemon: { concurrency: 4 },
          // An agent that never claims completion: one iteration, then Rejected/.
          harnesses: { idle: { kind: 'command', command: FAKE_AGENT, env: {} } },
        },
      });
      const daemon = start(vault);
      await daemon.ready();
      write(vault, 'dep-bad', 'harness: idle\nmax_iterations: 1\n');
      write(vault, 'dep-child', 'depends_on: [dep-bad]\n');
      write(vault, 'cyc-1', 'depends_on: [cyc-2]\n');
      write(vault, 'cyc-2', 'depends_on: [cyc-1]\n');
      write(vault, 'unk-1', 'depends_on: [no-such-task-zz]\n');

      await daemon.waitForEvent('task.rejected', { taskId: 'dep-bad' });
      const rejected = await daemon.waitForEvent('task.order-blocked', { taskId: 'dep-child' });
      expect(rejected).toMatchObject({ reason: 'dependency-rejected', dependencies: ['dep-bad'] });
      expect(rejected.msg).toMatch(/dep-bad was rejected/);
      for (const id of ['cyc-1', 'cyc-2'])
        expect(await daemon.waitForEvent('task.order-blocked', { taskId: id })).toMatchObject({
          reason: 'dependency-cycle',
        });
      expect(await daemon.waitForEvent('task.order-blocked', { taskId: 'unk-1' })).toMatchObject({
        reason: 'dependency-unknown',
        dependencies: ['no-such-task-zz'],
      });

      const status = await runCli(['status', '--vault', vault.root]);
      expect(status.stdout).toMatch(/dep-child: stuck: its dependency dep-bad was rejected/);
      expect(status.stdout).toMatch(/cyc-1: stuck: depends_on makes a cycle/);
      expect(status.stdout).toMatch(/cyc-2: stuck: depends_on makes a cycle/);
      expect(status.stdout).toMatch(/unk-1: stuck: depends_on names no-such-task-zz/);
      expect(started(daemon)).toEqual(['dep-bad']);

      // Moved back to Approved/, the rejected dependency runs again; once it is done, so does its child.
      writeFileSync(join(vault.root, 'Approved', 'dep-bad.md'), `---\ntitle: dep-bad\n---\n- [ ] US-001 Do dep-bad\n`);
      rmSync(join(vault.root, 'Rejected', 'dep-bad.md'));
      await daemon.waitForEvent('task.done', { taskId: 'dep-child' });
      expect(started(daemon)).toEqual(['dep-bad', 'dep-bad', 'dep-child']);
    },
    NO_TOTAL_BUDGET,
  );

  test(
    'a dependency moved into Done/ by hand lets its dependent start at once, not at the next rescan',
    async () => {
      // A rescan far away: only the watch of Done/ can start the dependent.
      const vault = await makeVault({
        fake: { FAKE_COMPLETE_AFTER: '1' },
        config: { daemon: { rescan_interval: '1h' } },
      });
      mkdirSync(join(vault.root, 'Later'));
      writeFileSync(join(vault.root, 'Later', 'by-hand.md'), '---\ntitle: by-hand\n---\ndone elsewhere\n');
      const daemon = start(vault);
      await daemon.ready();
      write(vault, 'after-hand', 'depends_on: [by-hand]\n');
      const waits = await daemon.waitForEvent('task.order-waits', { taskId: 'after-hand' });
      expect(waits.waitsFor).toEqual(['by-hand']);
      renameSync(join(vault.root, 'Later', 'by-hand.md'), join(vault.root, 'Done', 'by-hand.md'));
      await daemon.waitForEvent('task.done', { taskId: 'after-hand' });
    },
    NO_TOTAL_BUDGET,
  );

  test(
    'not_before: the task waits, status says until when, and it starts once the time has come',
    async () => {
      const vault = await makeVault({ fake: { FAKE_COMPLETE_AFTER: '1' } });
      const daemon = start(vault);
      await daemon.ready();
      const atMs = Math.ceil((Date.now() + 3_000) / 1000) * 1000;
      write(vault, 'later', `not_before: ${new Date(atMs).toISOString()}\n`);
      const waits = await daemon.waitForEvent('task.order-waits', { taskId: 'later' });
      expect(waits.until).toBe(new Date(atMs).toISOString());
      const status = await runCli(['status', '--vault', vault.root]);
      expect(status.stdout).toMatch(/later: not before \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
      await daemon.waitForEvent('loop.started', { taskId: 'later' });
      expect(Date.now()).toBeGreaterThanOrEqual(atMs);
      await daemon.waitForEvent('task.done', { taskId: 'later' });
    },
    NO_TOTAL_BUDGET,
  );

  test(
    'priority at concurrency 1: tasks dropped while STOP exists run lowest number first, then in the order they came',
    async () => {
      const vault = await makeVault({ fake: { FAKE_COMPLETE_AFTER: '1' }, config: { daemon: { concurrency: 1 } } });
      writeFileSync(join(vault.root, 'STOP'), '');
      const daemon = start(vault);
      await daemon.ready();
      for (const [id, priority] of [
        ['pri-c', '3'],
        ['pri-b', '2'],
        ['pri-a', '1'],
        ['pri-e', '2'],
        ['pri-n', 'normal'],
      ] as const) {
        write(vault, id, `priority: ${priority}\n`);
        await daemon.waitForEvent('task.queued', { taskId: id });
      }
      rmSync(join(vault.root, 'STOP'));
      await daemon.waitForCount((line) => line.event === 'task.done', 5, 'five tasks done');
      expect(started(daemon)).toEqual(['pri-n', 'pri-a', 'pri-b', 'pri-e', 'pri-c']);
    },
    NO_TOTAL_BUDGET,
  );
});
