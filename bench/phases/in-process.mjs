// Figures measured inside this process against the built code: checkpoint write, state inspection.
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkpointData, loopStateFromCheckpoint } from '../../dist/loop/checkpoint.js';
import { updateTaskFile } from '../../dist/task/update-file.js';
import { parseTask } from '../../dist/task/parse.js';
import { readTaskFile } from '../../dist/task/read.js';
import { readTaskState } from '../../dist/task/state.js';
import { tempDir } from '../lib/cleanup.mjs';
import { taskText } from '../lib/fixtures.mjs';
import { summarize, timeBox } from '../lib/stats.mjs';
import { fsyncWriteRename } from './floors.mjs';

/**
 * `updateTaskFile` (what the loop calls after every iteration) on a realistic, checkpointed task,
 * interleaved sample by sample with the floor: an fsync'd write + rename of the same bytes in the
 * same folder, so both see the same disk weather.
 */
export async function checkpointWrite({ n, warmup, maxMs = Infinity, minN = n }) {
  const box = timeBox(maxMs, minN);
  const dir = tempDir('checkpoint');
  const file = join(dir, 'Improve billing flow.md');
  writeFileSync(file, taskText(7, { loop: 'running' }));
  const floorTarget = join(dir, 'floor.md');
  let lastText = readFileSync(file, 'utf8');
  const first = (await readTaskFile(file)).result.task;
  let state = loopStateFromCheckpoint(first.frontmatter.persistence_loop, 20);
  const figure = [];
  const floor = [];
  const started = Date.parse('2026-01-27T10:05:00Z');
  for (let i = 0; i < warmup + n && box.more(figure.length); i += 1) {
    state = { ...state, iteration: (state.iteration % 19) + 1, activeMs: state.activeMs + 1234 };
    const keys = {
      state: 'Approved',
      persistence_loop: checkpointData({
        state,
        status: 'running',
        session: first.frontmatter.persistence_loop.session,
        started: '2026-01-27T10:05:00Z',
        nowMs: started + i * 60_000,
        completedSteps: ['US-001', 'US-002', 'US-003'],
        currentStep: 'US-004',
        lastOutcome: 'continue',
      }),
    };
    const measureFloor = () => {
      const t = performance.now();
      fsyncWriteRename(floorTarget, lastText);
      return performance.now() - t;
    };
    const measureFigure = async () => {
      const t = performance.now();
      lastText = (await updateTaskFile(file, lastText, { keys })).task.text;
      return performance.now() - t;
    };
    // Alternate which goes first, so neither always follows the other's fsync.
    let a;
    let b;
    if (i % 2 === 0) {
      a = await measureFigure();
      b = measureFloor();
    } else {
      b = measureFloor();
      a = await measureFigure();
    }
    if (i >= warmup) {
      figure.push(a);
      floor.push(b);
    }
  }
  return { figure: summarize(figure), floor: summarize(floor), bytes: Buffer.byteLength(lastText) };
}

/**
 * State inspection: `readTaskState` (open, fstat, read, decode, and parse of the id and the
 * checkpoint only) of one checkpointed task, as `wiggum status` reads it; for reference the full
 * `readTaskFile` (every key parsed and validated, as before a run) and the parse alone. The floor
 * is `fs.promises.readFile` of the same file (the I/O with no parsing). Every sample reads a
 * different file with different bytes, all written before the timing starts: the cold path, as
 * for a task not read before (a parse cache keyed by content could not hide it).
 */
export async function stateInspection({ n, warmup, maxMs = Infinity, minN = n }) {
  const dir = tempDir('inspect');
  const text = taskText(7, { loop: 'interrupted' });
  const files = [];
  for (let i = 0; i < warmup + n; i += 1) {
    const file = join(dir, `Improve billing flow ${i}.md`);
    writeFileSync(file, text.replace(/active_ms: \d+/, `active_ms: ${1_000_000 + i}`));
    files.push(file);
  }
  // The full read runs on a copy of each file, so that neither read warms the other's cache.
  const copies = files.map((file) => {
    const copy = file.replace(/\.md$/, ' (full).md');
    writeFileSync(copy, readFileSync(file));
    return copy;
  });
  const box = timeBox(maxMs, minN);
  const state = [];
  const full = [];
  const parse = [];
  const floor = [];
  for (let i = 0; i < warmup + n && box.more(state.length); i += 1) {
    const file = files[i];
    let t = performance.now();
    const bytes = await readFile(file, 'utf8');
    const floorMs = performance.now() - t;
    t = performance.now();
    const view = await readTaskState(file);
    const stateMs = performance.now() - t;
    if (view?.loop?.iteration === undefined) throw new Error('the inspected task has no checkpoint');
    t = performance.now();
    const result = await readTaskFile(copies[i]);
    const fullMs = performance.now() - t;
    if (!result.result.ok) throw new Error('the inspected task did not parse');
    t = performance.now();
    parseTask(`${file}#parse`, bytes);
    const parseMs = performance.now() - t;
    if (i >= warmup) {
      state.push(stateMs);
      full.push(fullMs);
      parse.push(parseMs);
      floor.push(floorMs);
    }
  }
  return {
    figure: summarize(state),
    fullRead: summarize(full),
    parseOnly: summarize(parse),
    floor: summarize(floor),
    bytes: Buffer.byteLength(text),
  };
}
