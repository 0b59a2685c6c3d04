import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { DaemonProcess } from '../helpers/daemon.js';
import { historyOf } from '../helpers/history.js';
import { fakeRuns, makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { findingsOf } from '../helpers/vault-findings.js';
import { NO_TOTAL_BUDGET, waitForProgress } from '../helpers/wait.js';
import { printFigures } from './figures.js';

/**
 * Volume: a burst of tasks dropped at once into a running daemon, and a daemon started over a vault
 * that already holds 10,000 tasks. None lost, none run twice, memory bounded. CI drops 300;
 * `npm run test:reliability` 1,000 (RELIABILITY_BURST).
 */

const BURST = Number(process.env.RELIABILITY_BURST ?? '300');
/** A bound, not a budget (npm run bench measures those): far above what the daemon needs, far below a leak. */
const PEAK_RSS_LIMIT_MB = 300;
const figures: Record<string, unknown> = {};
afterAll(() => printFigures('volume', figures));

const taskText = (i: number): string =>
  `---\ntitle: Volume ${i}\nnote: "user text ☕ stays"\n---\n# Volume ${i}\n\n- [ ] US-001 The one story\n`;

/** As a sync tool or a script drops a file: written beside, then renamed in. */
function drop(vault: TestVault, name: string, text: string): void {
  const temp = join(vault.root, `.${name}.part`);
  writeFileSync(temp, text);
  renameSync(temp, join(vault.layout.approved, name));
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
}

const mdCount = (folder: string): number => readdirSync(folder).filter((name) => name.endsWith('.md')).length;

async function runAll(
  vault: TestVault,
  originals: Map<string, string>,
  expectedDone: number,
): Promise<{ peakMb: number; seconds: number }> {
  const started = Date.now();
  const daemon = DaemonProcess.start(vault.root, ['--concurrency', '4']);
  await daemon.ready();
  for (const [name, text] of originals) if (!readdirSync(vault.layout.approved).includes(name)) drop(vault, name, text);
  // However long the machine takes: only two minutes without a task done fails the wait.
  await waitForProgress(() => mdCount(vault.layout.done), expectedDone, `${expectedDone} tasks in Done/`);
  const peakMb = peakRssMb(daemon.child.pid!);
  expect(await daemon.drain()).toEqual({ code: 0, signal: null });
  return { peakMb, seconds: (Date.now() - started) / 1000 };
}

function expectEachOnce(vault: TestVault, originals: Map<string, string>): void {
  const findings = findingsOf(vault.root, originals);
  expect({ ...findings }).toEqual({
    notDone: [],
    duplicated: [],
    corrupted: [],
    tornHistory: [],
    miscounted: [],
    tempsLeft: [],
    orphans: [],
  });
  const ranTwice = [...originals.keys()].filter(
    (name) => historyOf(vault.layout.sessions, name.slice(0, -3)).length !== 1,
  );
  expect(ranTwice).toEqual([]);
  // The agent's own count (its marks: a confined run's session folder is a copy), and no run's
  // folder left behind once its task is done (.wiggum/sandbox/<task>/: the memory copies).
  const runs = fakeRuns(vault);
  expect([...originals.keys()].filter((name) => runs.get(name.slice(0, -3)) !== 1)).toEqual([]);
  const sandbox = join(vault.root, '.wiggum', 'sandbox');
  expect(existsSync(sandbox) ? readdirSync(sandbox) : []).toEqual([]);
}

describe('volume', () => {
  test(
    `${BURST} tasks dropped at once into a running daemon: each runs exactly once, none is lost, memory stays bounded`,
    async () => {
      const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
      const originals = new Map(Array.from({ length: BURST }, (_, i) => [`burst-${i}.md`, taskText(i)] as const));
      const { peakMb, seconds } = await runAll(vault, originals, BURST);
      expectEachOnce(vault, originals);
      expect(mdCount(vault.layout.rejected)).toBe(0);
      expect(peakMb).toBeLessThan(PEAK_RSS_LIMIT_MB);
      Object.assign(figures, {
        'burst tasks': BURST,
        'burst lost': 0,
        'burst ran twice': 0,
        'burst peak RSS MB': Math.round(peakMb),
        'burst seconds': Math.round(seconds),
      });
    },
    NO_TOTAL_BUDGET,
  );

  test(
    'a daemon started over 10,000 tasks runs those in Approved/ once each and leaves Done/ and Rejected/ as they are',
    async () => {
      const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
      const approved = Math.min(BURST, 1_000);
      const finished = 10_000 - approved;
      for (let i = 0; i < finished; i += 1) {
        const folder = i % 2 === 0 ? vault.layout.done : vault.layout.rejected;
        writeFileSync(
          join(folder, `old-${i}.md`),
          `---\ntitle: Old ${i}\nstate: ${i % 2 === 0 ? 'Done' : 'Rejected'}\n---\nfinished long ago\n`,
        );
      }
      const sample = join(vault.layout.rejected, 'old-1.md');
      const sampleBefore = { text: readFileSync(sample, 'utf8'), mtimeMs: statSync(sample).mtimeMs };
      const originals = new Map(Array.from({ length: approved }, (_, i) => [`now-${i}.md`, taskText(i)] as const));
      for (const [name, text] of originals) writeFileSync(join(vault.layout.approved, name), text);

      const { peakMb, seconds } = await runAll(vault, originals, finished / 2 + approved);
      expectEachOnce(vault, originals);
      expect(mdCount(vault.layout.rejected)).toBe(finished / 2);
      expect({ text: readFileSync(sample, 'utf8'), mtimeMs: statSync(sample).mtimeMs }).toEqual(sampleBefore);
      expect(peakMb).toBeLessThan(PEAK_RSS_LIMIT_MB);
      Object.assign(figures, {
        'vault of 10,000: run': approved,
        'vault of 10,000: lost': 0,
        'vault of 10,000: peak RSS MB': Math.round(peakMb),
        'vault of 10,000: seconds': Math.round(seconds),
      });
    },
    NO_TOTAL_BUDGET,
  );
});
