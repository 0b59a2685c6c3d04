import { describe, expect, test } from 'vitest';
import { isDueForRead, markFinished, markStopped, plan } from '../../src/vault/reconcile.js';
import type { KnownTask, ReconcileAction, ReconcileSettings } from '../../src/vault/reconcile.js';
import type { TaskFileEntry, VaultSnapshot } from '../../src/vault/scan.js';
import type { WaitReason } from '../../src/task/readiness.js';

/**
 * Scenarios are sequences of reconciliations on a fake time line. Each step says what is in
 * Approved/ at `at` ms, and what `plan` must answer. As in the watcher, a file is read (its
 * `parses` known) only when it is settling and due; `read: false` pretends the scan skipped it.
 */
interface FileState {
  size: number;
  /** Default: the time of the step at which the file appeared or last changed size or inode, as a write would set it. */
  mtime?: number;
  ino?: number;
  /** Whether its content parses, when read. Default true. */
  parses?: boolean;
  read?: boolean;
  /** Has another hard link (nlink > 1). */
  linked?: boolean;
  /** Why it may not run, when read (empty, names no harness, the order of work). */
  wait?: WaitReason;
}

type Phase = KnownTask['phase'] | 'forgotten';

interface Step {
  at: number;
  /** Approved/ at this step; omitted: as in the previous step. */
  files?: Record<string, FileState>;
  /** Stems with a stop flag; omitted: as before. */
  stops?: string[];
  globalStop?: boolean;
  /** Applied to `known` before the plan, as the daemon would. */
  mark?: { finished?: string; stopped?: string };
  expect: string[];
  next?: number | null;
  phases?: Record<string, Phase>;
}

interface Scenario {
  name: string;
  settings?: Partial<ReconcileSettings>;
  steps: Step[];
}

/** No quiet period for notes composed in place, unless a scenario sets one: the settle rules alone. */
const SETTINGS = { settleMs: 100, composeQuietMs: 0, goneGraceMs: 1000, malformedGraceMs: 2000 };

function run(scenario: Scenario): void {
  const settings = { ...SETTINGS, ...scenario.settings };
  let known = new Map<string, KnownTask>();
  let globalStopWas = false;
  let files: Record<string, FileState> = {};
  let stops: string[] = [];
  let globalStop = false;
  const written = new Map<string, { size: number; ino: number; at: number }>();
  for (const [index, step] of scenario.steps.entries()) {
    const where = `${scenario.name}, step ${index} (at ${step.at})`;
    if (step.mark?.finished !== undefined) known = markFinished(known, step.mark.finished);
    if (step.mark?.stopped !== undefined) known = markStopped(known, step.mark.stopped);
    files = step.files ?? files;
    stops = step.stops ?? stops;
    globalStop = step.globalStop ?? globalStop;
    for (const [name, file] of Object.entries(files)) {
      const last = written.get(name);
      if (last === undefined || last.size !== file.size || last.ino !== (file.ino ?? 1))
        written.set(name, { size: file.size, ino: file.ino ?? 1, at: step.at });
    }
    for (const name of written.keys()) if (!(name in files)) written.delete(name);
    const snapshot = snapshotOf(
      files,
      stops,
      globalStop,
      known,
      step.at,
      settings.settleMs,
      (name) => written.get(name)?.at ?? step.at,
    );
    const result = plan(snapshot, known, step.at, { ...settings, globalStopWas });
    expect(result.actions.map(describeAction), where).toEqual(step.expect);
    if (step.next !== undefined) expect(result.nextCheckAtMs, where).toBe(step.next);
    for (const [name, phase] of Object.entries(step.phases ?? {})) {
      expect(result.known.get(name)?.phase ?? 'forgotten', `${where}: ${name}`).toBe(phase);
    }
    known = result.known;
    globalStopWas = globalStop;
  }
}

function snapshotOf(
  files: Record<string, FileState>,
  stops: string[],
  globalStop: boolean,
  known: ReadonlyMap<string, KnownTask>,
  at: number,
  settleMs: number,
  writtenAt: (name: string) => number,
): VaultSnapshot {
  const tasks = new Map<string, TaskFileEntry>();
  const linked = new Set<string>();
  for (const [name, file] of Object.entries(files)) {
    if (file.linked === true) {
      linked.add(name);
      continue;
    }
    const read = (file.read ?? true) && isDueForRead(known.get(name), at, settleMs);
    tasks.set(name, {
      name,
      path: `/vault/Approved/${name}`,
      size: file.size,
      mtimeMs: file.mtime ?? writtenAt(name),
      ino: file.ino ?? 1,
      parses: read ? (file.parses ?? true) : null,
      ...(read ? { wait: file.wait ?? null } : {}),
    });
  }
  return { takenAtMs: at, tasks, linked, symlinks: new Set<string>(), stopFlags: new Set(stops), globalStop };
}

function describeAction(action: ReconcileAction): string {
  return action.kind === 'hold' ? `hold ${action.on ? 'on' : 'off'}` : `${action.kind} ${action.name}`;
}

const a = (size: number, more: Omit<FileState, 'size'> = {}): Record<string, FileState> => ({
  'a.md': { size, ...more },
});

const composing = { composeQuietMs: 5000 };

const scenarios: Scenario[] = [
  {
    name: 'a note written in place (empty, then saved as typed) starts once quiet for composeQuietMs, once',
    settings: composing,
    steps: [
      { at: 0, files: a(0, { wait: 'empty' }), expect: [], next: 100 },
      { at: 100, expect: [], next: null, phases: { 'a.md': 'settling' } },
      { at: 1000, files: a(20, { parses: false }), expect: [], next: 6000 },
      { at: 2200, files: a(60), expect: [], next: 7200 },
      { at: 4700, files: a(90), expect: [], next: 9700 },
      { at: 9600, expect: [], next: 9700 },
      { at: 9700, expect: ['start a.md'] },
      { at: 20_000, expect: [] },
    ],
  },
  {
    name: 'a file replaced again and again under its name (vim: swap file renamed over) waits for quiet too',
    settings: composing,
    steps: [
      { at: 0, files: a(20, { parses: false, ino: 1 }), expect: [], next: 100 },
      { at: 800, files: a(40, { ino: 2 }), expect: [], next: 5800 },
      { at: 1800, files: a(60, { ino: 3 }), expect: [], next: 6800 },
      { at: 6800, expect: ['start a.md'] },
    ],
  },
  {
    name: 'a complete file, moved in or written atomically, starts after the settle time alone',
    settings: composing,
    steps: [
      { at: 0, files: a(80), expect: [], next: 100 },
      { at: 100, expect: ['start a.md'] },
    ],
  },
  {
    name: 'a note being composed that is renamed starts at once under its new name; the old name is forgotten',
    settings: composing,
    steps: [
      { at: 0, files: { 'Untitled.md': { size: 0, wait: 'empty', ino: 7 } }, expect: [], next: 100 },
      { at: 500, files: { 'Untitled.md': { size: 90, ino: 7 } }, expect: [], next: 5500 },
      {
        at: 1500,
        files: { 'Fix it.md': { size: 90, ino: 7, mtime: 500 } },
        expect: [],
        next: 1550,
        phases: { 'Untitled.md': 'forgotten' },
      },
      { at: 1550, expect: ['start Fix it.md'] },
    ],
  },
  {
    name: 'an empty file or one naming no harness waits, with no timer, and starts once fixed',
    settings: composing,
    steps: [
      {
        at: 0,
        files: { 'e.md': { size: 0, wait: 'empty' }, 'n.md': { size: 30, wait: 'no-harness' } },
        expect: [],
        next: 100,
      },
      { at: 100, expect: [], next: null, phases: { 'e.md': 'settling', 'n.md': 'settling' } },
      { at: 60_000, expect: [], next: null },
      { at: 61_000, files: { 'e.md': { size: 0, wait: 'empty' }, 'n.md': { size: 45 } }, expect: [], next: 66_000 },
      { at: 66_000, expect: ['start n.md'] },
    ],
  },
  {
    name: 'the order of work: a dependency waits with no timer of its own, a not_before arms one, both start once their wait is over',
    steps: [
      {
        at: 0,
        files: {
          'dep.md': { size: 30, wait: { kind: 'dependencies', ids: ['a'] } },
          'nb.md': { size: 30, wait: { kind: 'not-before', atMs: 5000 } },
        },
        expect: [],
        next: 100,
      },
      { at: 100, expect: [], next: 5000, phases: { 'dep.md': 'settling', 'nb.md': 'settling' } },
      // The dependency is done (the daemon reconciles when a run ends): the same file, read again, may start.
      {
        at: 2000,
        files: { 'dep.md': { size: 30 }, 'nb.md': { size: 30, wait: { kind: 'not-before', atMs: 5000 } } },
        expect: ['start dep.md'],
        next: 5000,
      },
      { at: 5000, files: { 'dep.md': { size: 30 }, 'nb.md': { size: 30 } }, expect: ['start nb.md'] },
    ],
  },
  {
    name: 'the settle time counts from the mtime when the file was written just before it was seen',
    steps: [
      { at: 30, files: a(10, { mtime: 0 }), expect: [], next: 100 },
      { at: 100, expect: ['start a.md'] },
    ],
  },
  {
    name: 'a file with an old mtime (a copy that kept it) is still watched for half the settle time',
    steps: [
      { at: 5000, files: a(10, { mtime: 10 }), expect: [], next: 5050 },
      { at: 5050, expect: ['start a.md'] },
    ],
  },
  {
    name: 'an mtime in the future (clock skew) counts as now',
    steps: [
      { at: 0, files: a(10, { mtime: 99_999 }), expect: [], next: 100 },
      { at: 100, expect: ['start a.md'] },
    ],
  },
  {
    name: 'a new file starts once it has been unchanged for the settle time and parses',
    steps: [
      { at: 0, files: a(10), expect: [], next: 100, phases: { 'a.md': 'settling' } },
      { at: 50, expect: [], next: 100 },
      { at: 100, expect: ['start a.md'], next: null, phases: { 'a.md': 'active' } },
      { at: 200, expect: [], next: null },
    ],
  },
  {
    name: 'a due file the scan did not read asks for a read at once',
    steps: [
      { at: 0, files: a(10, { read: false }), expect: [], next: 100 },
      { at: 100, expect: [], next: 100, phases: { 'a.md': 'settling' } },
      { at: 101, files: a(10), expect: ['start a.md'] },
    ],
  },
  {
    name: 'with no settle time a new file starts at the next reconciliation, once read',
    settings: { settleMs: 0 },
    steps: [
      { at: 0, files: a(10), expect: [], next: 0 },
      { at: 0, expect: ['start a.md'], next: null },
    ],
  },
  {
    name: 'a half-written file that grows, pauses, grows starts once, complete',
    steps: [
      { at: 0, files: a(10, { parses: false }), expect: [], next: 100 },
      { at: 60, files: a(20, { parses: false }), expect: [], next: 160 },
      // The writer pauses longer than the settle time: still cut off mid-frontmatter, so it waits.
      { at: 160, expect: [], next: 2060 },
      { at: 500, files: a(40, { parses: false }), expect: [], next: 600 },
      { at: 700, files: a(80), expect: [], next: 800 },
      { at: 800, expect: ['start a.md'], next: null },
      { at: 900, expect: [] },
    ],
  },
  {
    name: 'a malformed file starts only after the malformed grace (and the runner rejects it)',
    steps: [
      { at: 0, files: a(10, { parses: false }), expect: [], next: 100 },
      { at: 100, expect: [], next: 2000 },
      { at: 1999, expect: [], next: 2000, phases: { 'a.md': 'settling' } },
      { at: 2000, expect: ['start a.md'], next: null },
    ],
  },
  {
    name: 'a malformed file that changes starts its grace again',
    steps: [
      { at: 0, files: a(10, { parses: false }), expect: [], next: 100 },
      { at: 100, expect: [], next: 2000 },
      { at: 1500, files: a(11, { parses: false }), expect: [], next: 1600 },
      { at: 2000, expect: [], next: 3500 },
      { at: 3500, expect: ['start a.md'] },
    ],
  },
  {
    name: 'a change of inode alone (replaced with the same size and mtime) restarts settling',
    steps: [
      { at: 0, files: a(10), expect: [], next: 100 },
      { at: 90, files: a(10, { ino: 2 }), expect: [], next: 190 },
      { at: 190, expect: ['start a.md'] },
    ],
  },
  {
    name: 'a settling file that disappears is forgotten; back again, it is new',
    steps: [
      { at: 0, files: a(10), expect: [], next: 100 },
      { at: 50, files: {}, expect: [], next: null, phases: { 'a.md': 'forgotten' } },
      { at: 60, files: a(10), expect: [], next: 160 },
      { at: 160, expect: ['start a.md'] },
    ],
  },
  {
    name: 'editor save by unlink + add within the grace: the running task keeps running',
    steps: [
      { at: 0, files: a(10), expect: [] },
      { at: 100, expect: ['start a.md'] },
      { at: 200, files: {}, expect: [], next: 1200, phases: { 'a.md': 'active' } },
      { at: 300, files: a(12, { ino: 2 }), expect: [], next: null, phases: { 'a.md': 'active' } },
      { at: 5000, expect: [], next: null },
    ],
  },
  {
    name: 'editor save by rename over (a new inode): nothing happens',
    steps: [
      { at: 0, files: a(10), expect: [] },
      { at: 100, expect: ['start a.md'] },
      { at: 200, files: a(12, { ino: 7 }), expect: [], next: null, phases: { 'a.md': 'active' } },
      { at: 300, expect: [], next: null },
    ],
  },
  {
    name: 'an edited active file changes nothing (the runner re-reads it)',
    steps: [
      { at: 0, files: a(10), expect: [] },
      { at: 100, expect: ['start a.md'] },
      { at: 150, files: a(99, { parses: false }), expect: [], next: null, phases: { 'a.md': 'active' } },
    ],
  },
  {
    name: 'an active file missing longer than the grace is gone; a file by that name later is new',
    steps: [
      { at: 0, files: a(10), expect: [] },
      { at: 100, expect: ['start a.md'] },
      { at: 200, files: {}, expect: [], next: 1200 },
      { at: 1199, expect: [], next: 1200 },
      { at: 1200, expect: ['gone a.md'], next: null, phases: { 'a.md': 'forgotten' } },
      { at: 1300, files: a(10), expect: [], next: 1400 },
      { at: 1400, expect: ['start a.md'] },
    ],
  },
  {
    name: 'a stop flag stops an active task; removing it resumes the task',
    steps: [
      { at: 0, files: a(10), expect: [] },
      { at: 100, expect: ['start a.md'] },
      { at: 200, stops: ['a'], expect: ['stop a.md'], phases: { 'a.md': 'stopped' } },
      { at: 300, expect: [] },
      { at: 400, stops: [], expect: ['resume a.md'], phases: { 'a.md': 'active' } },
      { at: 500, expect: [] },
    ],
  },
  {
    name: 'a settled file with a stop flag is stopped without starting',
    steps: [
      { at: 0, files: a(10), stops: ['a'], expect: [], next: 100 },
      { at: 100, expect: [], next: null, phases: { 'a.md': 'stopped' } },
      { at: 200, stops: [], expect: ['resume a.md'], phases: { 'a.md': 'active' } },
    ],
  },
  {
    name: 'flags of other names stop nothing (a.md.stop is not the flag of a.md)',
    steps: [
      { at: 0, files: a(10), stops: ['ab', 'a.md', 'A'], expect: [] },
      { at: 100, expect: ['start a.md'] },
    ],
  },
  {
    name: 'a stop flag that appears while the active file is missing waits for the file',
    steps: [
      { at: 0, files: a(10), expect: [] },
      { at: 100, expect: ['start a.md'] },
      { at: 200, files: {}, stops: ['a'], expect: [], phases: { 'a.md': 'active' } },
      { at: 300, files: a(10), expect: ['stop a.md'] },
    ],
  },
  {
    name: 'a missing stopped task is not resumed when its flag goes; it is gone after the grace',
    steps: [
      { at: 0, files: a(10), stops: ['a'], expect: [] },
      { at: 100, expect: [], phases: { 'a.md': 'stopped' } },
      { at: 200, files: {}, stops: [], expect: [], next: 1200, phases: { 'a.md': 'stopped' } },
      { at: 1200, expect: ['gone a.md'] },
    ],
  },
  {
    name: 'the vault STOP file holds and releases, once per change, before anything else',
    steps: [
      { at: 0, globalStop: true, expect: ['hold on'] },
      { at: 10, expect: [] },
      { at: 20, files: a(10), expect: [] },
      { at: 120, globalStop: false, expect: ['hold off', 'start a.md'] },
      { at: 130, expect: [] },
      { at: 140, globalStop: true, stops: ['a'], expect: ['hold on', 'stop a.md'] },
    ],
  },
  {
    name: 'markFinished forgets a task; its file, still there, is picked up as new',
    steps: [
      { at: 0, files: a(10), expect: [] },
      { at: 100, expect: ['start a.md'] },
      // Its mtime is old, so only half the settle time is still watched.
      { at: 200, mark: { finished: 'a.md' }, expect: [], next: 250, phases: { 'a.md': 'settling' } },
      { at: 250, expect: ['start a.md'] },
    ],
  },
  {
    name: 'markFinished of a task moved away: nothing is left to be gone',
    steps: [
      { at: 0, files: a(10), expect: [] },
      { at: 100, expect: ['start a.md'] },
      { at: 200, files: {}, expect: [], next: 1200 },
      { at: 300, mark: { finished: 'a.md' }, expect: [], next: null, phases: { 'a.md': 'forgotten' } },
      { at: 5000, expect: [] },
    ],
  },
  {
    name: 'markStopped (the runner saw the flag first): removing the flag resumes',
    steps: [
      { at: 0, files: a(10), expect: [] },
      { at: 100, expect: ['start a.md'] },
      { at: 200, stops: ['a'], mark: { stopped: 'a.md' }, expect: [], phases: { 'a.md': 'stopped' } },
      { at: 300, stops: [], expect: ['resume a.md'] },
      // The flag was already gone when the run ended: resumed at once.
      { at: 400, mark: { stopped: 'a.md' }, expect: ['resume a.md'] },
    ],
  },
  {
    name: 'markStopped of a settling or unknown task changes nothing',
    steps: [
      { at: 0, files: a(10), expect: [] },
      { at: 50, mark: { stopped: 'a.md' }, expect: [], phases: { 'a.md': 'settling' } },
      { at: 100, mark: { stopped: 'zz.md' }, expect: ['start a.md'], phases: { 'zz.md': 'forgotten' } },
    ],
  },
  {
    name: 'a task with another hard link: still there while active, never started while settling',
    steps: [
      { at: 0, files: { 'a.md': { size: 10 }, 'b.md': { size: 10 } }, expect: [] },
      { at: 100, expect: ['start a.md', 'start b.md'] },
      // wiggum's own move to Done/ links, then unlinks: no missing state in between.
      {
        at: 200,
        files: { 'a.md': { size: 10, linked: true }, 'b.md': { size: 10 }, 'c.md': { size: 5 } },
        expect: [],
        next: 300,
        phases: { 'a.md': 'active' },
      },
      {
        at: 250,
        files: { 'a.md': { size: 10, linked: true }, 'b.md': { size: 10 }, 'c.md': { size: 5, linked: true } },
        expect: [],
        next: null,
        phases: { 'c.md': 'forgotten' },
      },
      { at: 5000, expect: [], phases: { 'a.md': 'active' } },
    ],
  },
  {
    name: 'nextCheckAtMs is the earliest end of any settle or grace period',
    steps: [
      { at: 0, files: { 'a.md': { size: 1 } }, expect: [], next: 100 },
      { at: 50, files: { 'a.md': { size: 1 }, 'b.md': { size: 1 } }, expect: [], next: 100 },
      { at: 100, expect: ['start a.md'], next: 150 },
      { at: 120, files: { 'b.md': { size: 1 }, 'c.md': { size: 1, parses: false } }, expect: [], next: 150 },
      { at: 150, expect: ['start b.md'], next: 220 },
      { at: 220, expect: [], next: 1120 },
      { at: 1120, expect: ['gone a.md'], next: 2120 },
      { at: 2120, expect: ['start c.md'], next: null },
    ],
  },
  {
    name: 'stops and gones come before starts and resumes',
    steps: [
      { at: 0, files: { 'a.md': { size: 1 }, 'b.md': { size: 1 }, 'c.md': { size: 1 } }, stops: ['c'], expect: [] },
      { at: 100, expect: ['start a.md', 'start b.md'], phases: { 'c.md': 'stopped' } },
      { at: 200, files: { 'b.md': { size: 1 }, 'c.md': { size: 1 } }, expect: [] },
      {
        at: 1200,
        files: { 'b.md': { size: 1 }, 'c.md': { size: 1 }, 'd.md': { size: 1 } },
        stops: ['b', 'c'],
        expect: ['stop b.md', 'gone a.md'],
      },
      { at: 1300, stops: [], expect: ['resume b.md', 'resume c.md', 'start d.md'] },
    ],
  },
];

describe('plan', () => {
  test.each(scenarios)('$name', (scenario) => run(scenario));

  test('200 files start first come, first served: by first sight, then mtime, then name', () => {
    const settings = { ...SETTINGS, globalStopWas: false };
    const names = Array.from({ length: 200 }, (_, i) => `t${String(i).padStart(3, '0')}.md`);
    // Two waves (first seen at 0 and at 10); mtimes out of name order and with ties.
    const mtimeOf = (i: number): number => (i * 37) % 50;
    const entries = names.map((name, i): TaskFileEntry => ({
      name,
      path: `/v/${name}`,
      size: 1,
      mtimeMs: mtimeOf(i),
      ino: i + 1,
      parses: true,
    }));
    const snapshot = (at: number, count: number): VaultSnapshot => ({
      takenAtMs: at,
      tasks: new Map(entries.slice(0, count).map((entry) => [entry.name, entry])),
      linked: new Set(),
      symlinks: new Set(),
      stopFlags: new Set(),
      globalStop: false,
    });
    let known: Map<string, KnownTask> = plan(snapshot(0, 100), new Map(), 0, settings).known;
    known = plan(snapshot(10, 200), known, 10, settings).known;
    const result = plan(snapshot(110, 200), known, 110, settings);

    const expected = names
      .map((name, i) => ({ name, wave: i < 100 ? 0 : 1, mtime: mtimeOf(i) }))
      .sort((x, y) => x.wave - y.wave || x.mtime - y.mtime || (x.name < y.name ? -1 : 1))
      .map((task) => `start ${task.name}`);
    expect(result.actions.map(describeAction)).toEqual(expected);
    expect(new Set(expected).size).toBe(200);
    expect(plan(snapshot(200, 200), result.known, 200, settings).actions).toEqual([]);
  });

  test('the known map passed in is never changed', () => {
    const settings = { ...SETTINGS, globalStopWas: false };
    const entry: TaskFileEntry = { name: 'a.md', path: '/v/a.md', size: 1, mtimeMs: 1, ino: 1, parses: true };
    const first = plan(
      {
        takenAtMs: 0,
        tasks: new Map([['a.md', entry]]),
        linked: new Set(),
        symlinks: new Set(),
        stopFlags: new Set(),
        globalStop: false,
      },
      new Map(),
      0,
      settings,
    );
    const frozen = structuredClone(first.known);
    plan(
      {
        takenAtMs: 100,
        tasks: new Map(),
        linked: new Set(),
        symlinks: new Set(),
        stopFlags: new Set(['a']),
        globalStop: true,
      },
      first.known,
      2000,
      settings,
    );
    markFinished(first.known, 'a.md');
    markStopped(first.known, 'a.md');
    expect(first.known).toEqual(frozen);
  });
});
