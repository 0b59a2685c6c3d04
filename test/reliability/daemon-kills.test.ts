import { cpSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { DaemonProcess } from '../helpers/daemon.js';
import { historyOf } from '../helpers/history.js';
import { makeVault } from '../helpers/vault.js';
import { findingsOf, harnessesOf, harnessesStartedBy, problemCount } from '../helpers/vault-findings.js';
import type { VaultFindings } from '../helpers/vault-findings.js';
import { NO_TOTAL_BUDGET, waitFor, waitForProgress } from '../helpers/wait.js';
import { BWRAP_WORKS } from '../sandbox/git-bwrap.js';
import { printFigures } from './figures.js';

/**
 * kill -9 of the daemon at random moments while it runs many tasks, then a normal start: every task
 * ends in Done/ once with its user bytes intact, history lines whole, no iteration counted twice,
 * no harness left. Two campaigns: confined agents (the default, sandbox.mode: auto, where
 * bubblewrap works), which die with the daemon (--die-with-parent), so none is left even before the
 * next start; and unconfined ones (sandbox.mode: off), which outlive it in their own process group
 * until the next start kills them. Every other kill (the first, the third, …) waits until the
 * daemon has an agent running and lands inside that run; the others land at any moment from the
 * start (start-up, reconciliation, the writes and moves between iterations). The moments come from
 * a seeded generator, so a failure can be replayed:
 * RELIABILITY_SEED=<seed> RELIABILITY_KILLS=<n> npx vitest run test/reliability/daemon-kills.test.ts
 * CI runs 30 kills; `npm run test:reliability` runs 200.
 */

const KILLS = Number(process.env.RELIABILITY_KILLS ?? '30');
const SEED = Number(process.env.RELIABILITY_SEED ?? '20261123');
const STORIES = 3;
/** Tasks at the start; two more are dropped before each restart, so the daemon never runs out of work. */
const FIRST_TASKS = 10;
const TASKS = FIRST_TASKS + 2 * KILLS;
/** How long the fake agent runs: a kill aimed at a run lands within it. */
const AGENT_RUN_MS = 400;
/** Hang guards, not budgets: a daemon that starts no agent for this long, or gets no task done, is stuck. */
const STALL_MS = 120_000;

/** mulberry32: a small seeded generator, so the kill moments replay exactly. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function taskText(i: number): string {
  const stories = Array.from({ length: STORIES }, (_, s) => `- [ ] US-00${s + 1} Story ${s + 1} of task ${i}`).join(
    '\n',
  );
  return `---\ntitle: Task ${i}\nnote: "user text ☕ stays"  # kept\npriority: ${i % 3}\n---\n# Task ${i}\n\nWork through the stories.\n\n${stories}\n`;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The campaigns: how the agents run, and whether they die with a daemon killed under them. */
const CAMPAIGNS = [
  {
    agents: BWRAP_WORKS ? 'confined (sandbox.mode: auto)' : 'unconfined (sandbox.mode: auto, no bubblewrap)',
    mode: 'auto',
    ranAs: BWRAP_WORKS ? 'bwrap' : 'unconfined',
    diesWithDaemon: BWRAP_WORKS,
  },
  { agents: 'unconfined (sandbox.mode: off)', mode: 'off', ranAs: 'off', diesWithDaemon: false },
];

describe('kill -9 of the daemon at random moments', () => {
  const figures = new Map<string, Record<string, unknown>>();
  afterAll(() => {
    for (const [agents, campaign] of figures) printFigures(`daemon kill -9, agents ${agents}`, campaign);
  });

  test.each(CAMPAIGNS)(
    `${KILLS} kills (seed ${SEED}) over ${TASKS} tasks, agents $agents: every task in Done/ once, nothing lost, corrupted or counted twice, no orphan`,
    async ({ agents, mode, ranAs, diesWithDaemon }) => {
      const vault = await makeVault({
        fake: { FAKE_STORY_PER_RUN: '1', FAKE_MODE: 'sleep', FAKE_SLEEP_MS: String(AGENT_RUN_MS) },
        config: { daemon: { concurrency: 2 }, sandbox: { mode } },
      });
      const originals = new Map<string, string>();
      const drop = (i: number): void => {
        originals.set(`t${i}.md`, taskText(i));
        vault.task(`t${i}`, taskText(i));
      };
      for (let i = 1; i <= FIRST_TASKS; i += 1) drop(i);
      const random = seeded(SEED);
      let killedMidRun = 0;
      let aimedAtRuns = 0;
      let leftRunning = 0;
      for (let kill = 1; kill <= KILLS; kill += 1) {
        drop(FIRST_TASKS + 2 * kill - 1);
        drop(FIRST_TASKS + 2 * kill);
        const daemon = DaemonProcess.start(vault.root);
        let ended: unknown = null;
        void daemon.exited.then((exit) => (ended = exit));
        // An agent this daemon started (one a killed daemon left behind is not its running work).
        // Every start must survive what the kill before it cut short: a daemon that exits on its
        // own fails the campaign at once, with its reason, instead of leaving this wait to run out.
        const running = (): boolean => {
          if (ended !== null)
            throw new Error(`daemon ${kill} exited by itself (${JSON.stringify(ended)}): ${daemon.stderr.trim()}`);
          return harnessesStartedBy(vault.root, daemon.child.pid ?? -1).length > 0;
        };
        if (kill % 2 === 1) {
          aimedAtRuns += 1;
          await waitFor(running, `an agent started by daemon ${kill}`, STALL_MS);
          await sleep(random() * AGENT_RUN_MS);
          // On a busy machine the run may be over by now: then the next one.
          if (!running()) await waitFor(running, `an agent started by daemon ${kill}`, STALL_MS);
        } else {
          await sleep(100 + random() * 2_400);
        }
        if (running()) killedMidRun += 1;
        daemon.kill('SIGKILL');
        expect(await daemon.exited, `daemon ${kill}: ${daemon.stderr}`).toEqual({ code: null, signal: 'SIGKILL' });
        // Confined, the agents go with the daemon; unconfined, the next start finds and kills them.
        if (diesWithDaemon) await waitFor(() => harnessesOf(vault.root).length === 0, `daemon ${kill}'s agents gone`);
        else if (harnessesOf(vault.root).length > 0) leftRunning += 1;
      }

      const daemon = DaemonProcess.start(vault.root);
      await daemon.ready();
      // What is left grows with the campaign and the machine's load: each task done moves the wait on.
      await waitForProgress(
        () => readdirSync(vault.layout.done).filter((name) => name.endsWith('.md')).length,
        TASKS,
        `all ${TASKS} tasks in Done/`,
        STALL_MS,
      );
      expect(await daemon.drain(STALL_MS)).toEqual({ code: 0, signal: null });
      // Killed agents leave /proc once reaped; any still there after this are counted as orphans below.
      await waitFor(() => harnessesOf(vault.root).length === 0, 'every harness gone', 30_000).catch(() => undefined);

      // A kill costs at most the iteration it cut: no task takes more iterations than it has stories.
      const findings: VaultFindings = findingsOf(vault.root, originals, { oneStoryPerIteration: true });
      const campaign = {
        seed: SEED,
        kills: KILLS,
        'kills aimed at a run': aimedAtRuns,
        'kills with a harness running': killedMidRun,
        'kills that left a harness running': leftRunning,
        tasks: TASKS,
        'tasks lost': findings.notDone.length,
        'ran twice (duplicated)': findings.duplicated.length,
        'files corrupted': findings.corrupted.length,
        'history lines torn': findings.tornHistory.length,
        'iterations miscounted': findings.miscounted.length,
        'temp files left': findings.tempsLeft.length,
        orphans: findings.orphans.length,
      };
      figures.set(agents, campaign);
      if (problemCount(findings) > 0) {
        // Keep the evidence (task files, sessions with their history and logs) beyond the temp folder.
        const evidence = join(tmpdir(), `wiggum-kill-evidence-${SEED}-${mode}-${process.pid}`);
        cpSync(vault.root, evidence, { recursive: true });
        console.log(`reliability: the vault of the failed campaign is kept in ${evidence}`);
      }
      expect({ ...findings }).toEqual({
        notDone: [],
        duplicated: [],
        corrupted: [],
        tornHistory: [],
        miscounted: [],
        tempsLeft: [],
        orphans: [],
      });
      expect(problemCount(findings)).toBe(0);
      // Every iteration ran as the campaign says (its history line's `sandbox`).
      const ranAsEach = [...originals.keys()].flatMap((name) =>
        historyOf(vault.layout.sessions, name.slice(0, -3)).map((record) => record.sandbox),
      );
      expect(new Set(ranAsEach)).toEqual(new Set([ranAs]));
      // The campaign must have hit running work, not only start-ups: every aimed kill did.
      expect(killedMidRun).toBeGreaterThanOrEqual(aimedAtRuns);
      expect(killedMidRun).toBeGreaterThan(KILLS / 3);
    },
    NO_TOTAL_BUDGET,
  );
});
