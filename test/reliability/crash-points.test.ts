import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../helpers/child.js';
import { DaemonProcess } from '../helpers/daemon.js';
import { historyOf } from '../helpers/history.js';
import { isEvent } from '../helpers/log-events.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import { findingsOf, harnessesOf, problemCount } from '../helpers/vault-findings.js';
import type { VaultFindings } from '../helpers/vault-findings.js';
import { NO_TOTAL_BUDGET, waitFor } from '../helpers/wait.js';
import { BWRAP_WORKS } from '../sandbox/git-bwrap.js';
import { printFigures } from './figures.js';

/**
 * Every crash point of one task's whole life through the daemon, not only random ones (as ALICE
 * and CrashMonkey enumerate crash states): a first run counts the daemon's file mutations in the
 * vault (test/fixtures/crash-at.mjs, loaded with --import, sits in node's fs, which every write goes
 * through); then for each N a fresh vault, a daemon that kills itself with SIGKILL right before
 * mutation N, and a normal daemon started after it. Each must end with the task in Done/ once,
 * the user's bytes intact, every history line whole, no iteration counted twice, nothing left.
 */

const CRASH_AT = join(REPO_ROOT, 'test', 'fixtures', 'crash-at.mjs');
const TASK =
  '---\ntitle: Crash points\nnote: "user text ☕ stays"   # a comment stays too\n---\n# Crash points\n\n- [ ] US-001 Alpha\n- [ ] US-002 Beta\n';
/** A hang guard for each step (a start-up, a task's run, a drain), not a budget for the whole. */
const GUARD_MS = 60_000;

interface PointResult {
  n: number;
  op: string;
  findings: VaultFindings;
}

async function freshVault() {
  const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
  vault.task('crash', TASK);
  return vault;
}

/** The daemon with the crash switch: crashes before mutation `at` (0: never), logging each mutation. */
function crashingDaemon(root: string, at: number, log: string): DaemonProcess {
  return DaemonProcess.start(root, [], { CRASH_ROOT: root, CRASH_LOG: log, CRASH_AT: String(at) }, [
    '--import',
    CRASH_AT,
  ]);
}

async function untilDone(daemon: DaemonProcess, root: string): Promise<void> {
  await waitFor(
    () =>
      existsSync(join(root, 'Done', 'crash.md')) || daemon.child.exitCode !== null || daemon.child.signalCode !== null,
    'the task in Done/',
    GUARD_MS,
  );
  // The move is done; let the daemon finish what follows it before it is asked to stop.
  await daemon
    .waitForLog(
      (line) =>
        (isEvent('task.moved')(line) && line.file === join(root, 'Done', 'crash.md')) ||
        isEvent('task.move-finished')(line),
      'the move logged',
      GUARD_MS,
    )
    .catch(() => undefined);
}

async function stop(daemon: DaemonProcess): Promise<void> {
  if (daemon.child.exitCode === null && daemon.child.signalCode === null) daemon.kill('SIGTERM');
  let hung = false;
  const forced = setTimeout(() => {
    hung = true;
    daemon.kill('SIGKILL');
  }, GUARD_MS);
  await daemon.exited;
  clearTimeout(forced);
  if (hung) throw new Error(`the daemon did not stop within ${GUARD_MS} ms of SIGTERM`);
}

function lines(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
}

async function crashAndRecover(n: number): Promise<PointResult> {
  const vault = await freshVault();
  const log = join(tempDir('wiggum-crash-log-'), 'mutations');
  const crashing = crashingDaemon(vault.root, n, log);
  await untilDone(crashing, vault.root);
  const exit = await Promise.race([
    crashing.exited,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), 50)),
  ]);
  if (exit === null) await stop(crashing);
  const op = lines(log).at(-1)?.split(' ').slice(1, 2).join(' ') ?? 'none';

  const recovering = DaemonProcess.start(vault.root);
  await recovering.ready();
  await waitFor(
    () => existsSync(join(vault.root, 'Done', 'crash.md')),
    `task in Done/ after a crash at mutation ${n} (${op})`,
    GUARD_MS,
  );
  await stop(recovering);
  // Killed agents leave /proc once reaped; any still there after this are counted as orphans.
  await waitFor(() => harnessesOf(vault.root).length === 0, 'no harness left', 30_000).catch(() => undefined);
  return { n, op, findings: findingsOf(vault.root, new Map([['crash.md', TASK]]), { oneStoryPerIteration: true }) };
}

describe('a crash at every file mutation of a task’s life', () => {
  const results: PointResult[] = [];
  afterAll(() => {
    const byOp = new Map<string, number>();
    for (const result of results) byOp.set(result.op, (byOp.get(result.op) ?? 0) + 1);
    printFigures('crash points', {
      'crash points': results.length,
      recovered: results.filter((result) => problemCount(result.findings) === 0).length,
      'by mutation': Object.fromEntries(byOp),
    });
  });

  test(
    'each one recovers: Done/ once, user bytes intact, history whole, no iteration twice, no orphan',
    async () => {
      // The count: one undisturbed life, daemon start to its stop after the move.
      const counted = await freshVault();
      const countLog = join(tempDir('wiggum-crash-count-'), 'mutations');
      const daemon = crashingDaemon(counted.root, 0, countLog);
      await untilDone(daemon, counted.root);
      await stop(daemon);
      const total = lines(countLog).length;
      expect(findingsOf(counted.root, new Map([['crash.md', TASK]]))).toMatchObject({
        notDone: [],
        corrupted: [],
        miscounted: [],
      });
      expect(total).toBeGreaterThan(20);
      // The agent runs confined where bubblewrap works (the default, sandbox.mode: auto): each crash
      // takes it down with the daemon.
      const ranAs = historyOf(counted.layout.sessions, 'crash').map((record) => record.sandbox);
      expect(new Set(ranAs)).toEqual(new Set([BWRAP_WORKS ? 'bwrap' : 'unconfined']));

      // Two at a time: each point is two daemon start-ups and a few agent runs.
      const points = Array.from({ length: total }, (_, index) => index + 1);
      const worker = async (): Promise<void> => {
        for (let n = points.shift(); n !== undefined; n = points.shift()) results.push(await crashAndRecover(n));
      };
      await Promise.all([worker(), worker()]);

      const failed = results
        .filter((result) => problemCount(result.findings) > 0)
        .map((result) => ({ n: result.n, op: result.op, ...result.findings }));
      if (failed.length > 0)
        console.log(
          failed
            .map(
              (f) =>
                `${f.n} ${f.op}: ${JSON.stringify(Object.fromEntries(Object.entries(f).filter(([, v]) => Array.isArray(v) && v.length > 0)))}`,
            )
            .join('\n'),
        );
      expect(failed).toEqual([]);
      expect(results).toHaveLength(total);
    },
    NO_TOTAL_BUDGET,
  );
});
