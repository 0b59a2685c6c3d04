import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { renderDashboard } from '../../src/daemon/dashboard.js';
import { StatsKeeper } from '../../src/daemon/stats-keeper.js';
import type { VaultView } from '../../src/daemon/view.js';
import { figuresOf } from '../../src/stats/figures.js';
import { noTasksByState } from '../../src/task/states.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { HOUR, ended, vaultWithEndings } from '../helpers/ended-tasks.js';
import { isEvent } from '../helpers/log-events.js';
import { waitFor } from '../helpers/wait.js';

const FOLDERS = { approved: 'Approved', done: 'Done', rejected: 'Rejected', review: 'Review' };
const daemons = drainedAfterEach();

describe("the Dashboard's headline figures", () => {
  test('rendered under the folder counts: success rate, finished and rejected, cost per finished task', () => {
    const view: VaultView = {
      counts: { approved: 0, blocked: 0, review: 0, done: 3, rejected: 1 },
      states: noTasksByState(),
      daemon: null,
      held: false,
      tasks: [],
      updatedAtMs: 0,
      stats: { ...figuresOf([]), finished: 3, rejected: 1, review: 2, successRate: 0.75, costPerFinishedUsd: 0.5 },
    };
    expect(renderDashboard(view, FOLDERS, 0)).toContain(
      '| 0 | 0 | 0 | 3 | 1 |\n\nSuccess rate 75% (3 finished, 1 rejected, 2 in review) · $0.5000 per finished task.\n',
    );
    const { stats: _, ...without } = view;
    expect(renderDashboard(without, FOLDERS, 0)).not.toContain('Success rate');
  });

  test('the keeper reads each file once, then only new names, files it is told changed, and forgets gone ones', async () => {
    const now = Date.now();
    const vault = await vaultWithEndings(now);
    const keeper = new StatsKeeper(vault.layout, () => 'fake');
    expect(keeper.headline).toBeUndefined();
    expect(await keeper.refresh()).toBe(true);
    expect(keeper.headline).toMatchObject({ finished: 3, rejected: 3, review: 1, successRate: 0.5 });
    expect(await keeper.refresh()).toBe(false);

    // A file rewritten under the same name is not read again unless named: the daemon names the files its tasks end in.
    const quick = join(vault.root, 'Done', 'quick.md');
    const iterationsBefore = keeper.headline?.iterationsPerFinished;
    writeFileSync(quick, readFileSync(quick, 'utf8').replace('  iteration: 2', '  iteration: 8'));
    expect(await keeper.refresh()).toBe(false);
    expect(keeper.headline?.iterationsPerFinished).toBe(iterationsBefore);
    expect(await keeper.refresh([quick])).toBe(true);
    expect(keeper.headline?.iterationsPerFinished).toBeCloseTo((8 + 4 + 1) / 3, 6);

    // A person's moves: Review/ → Done/ (approved), a rejected task deleted.
    renameSync(join(vault.root, 'Review', 'to-check.md'), join(vault.root, 'Done', 'to-check.md'));
    rmSync(join(vault.root, 'Rejected', 'garbled.md'));
    ended(vault, 'new', { folder: 'Rejected', startedMs: now - HOUR, endedMs: now, iterations: 1, runs: [] });
    expect(await keeper.refresh()).toBe(true);
    expect(keeper.headline).toMatchObject({ finished: 4, rejected: 3, review: 0 });
    await keeper.stop();
    expect(await keeper.refresh()).toBe(false);
  });

  test('a running daemon shows them on Dashboard.md from the files at start, and counts a task that ends', async () => {
    const vault = await vaultWithEndings(Date.now(), {
      fake: { FAKE_STORY_PER_RUN: '1' },
      config: { daemon: { dashboard_debounce: '50ms' } },
    });
    const page = join(vault.root, 'Dashboard.md');
    const dashboard = (): string => (existsSync(page) ? readFileSync(page, 'utf8') : '');
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.ready();
    await waitFor(() => dashboard().includes('Success rate 50% (3 finished, 3 rejected, 1 in review)'), 'the figures');
    vault.task('one-more', '---\ntitle: One story\n---\n- [ ] US-001 One\n');
    await daemon.waitForLog(isEvent('task.done', { taskId: 'one-more' }), 'one-more to be done');
    await waitFor(
      () => dashboard().includes('Success rate 57.1% (4 finished, 3 rejected, 1 in review)'),
      'the figures with one-more',
    );
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
  });
});
