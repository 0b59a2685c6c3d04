import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isLockOwnerAlive, readLockOwner } from '../lock/owner-lock.js';
import { readTaskState } from '../task/state.js';
import type { VaultLayout } from '../vault/layout.js';
import { isTaskFileName } from '../vault/names.js';

/** One `wiggum ralph` loop as `ralph --list` shows it. */
export interface LoopListing {
  change: string;
  /** `running` only while a live process holds its lock; a checkpoint saying running without one was cut short. */
  state: 'running' | 'queued' | 'waiting' | 'stopped' | 'interrupted' | 'done' | 'rejected';
  iteration: number;
  maxIterations: number | null;
  /** The checkpoint's last update, as written. */
  updated: string | null;
  /** The pid running it, when one does. */
  pid: number | null;
}

/**
 * Every loop under `.wiggum/ralph/` (open ones) and its done/ and rejected/ folders, open ones
 * first, each in name order.
 */
export async function listLoops(layout: VaultLayout): Promise<LoopListing[]> {
  const loops: LoopListing[] = [];
  for (const [folder, ended] of [
    [layout.approved, null],
    [layout.done, 'done'],
    [layout.rejected, 'rejected'],
  ] as const) {
    for (const name of names(folder)) {
      const view = await readTaskState(join(folder, name)).catch(() => null);
      if (view === null) continue;
      const change = name.slice(0, -'.md'.length);
      const owner =
        ended === null ? await readLockOwner(join(layout.taskLocks, `${view.id}.lock`)).catch(() => null) : null;
      const live = owner !== null && isLockOwnerAlive(owner);
      loops.push({
        change,
        state: ended ?? openState(view.loop?.status, live),
        iteration: view.loop?.iteration ?? 0,
        maxIterations: view.loop?.max_iterations ?? null,
        updated: view.loop?.updated ?? null,
        pid: live ? owner.pid : null,
      });
    }
  }
  return loops;
}

/** What an open loop is doing, from its checkpoint and whether a live process holds its lock. */
export function openState(status: string | undefined, live: boolean): LoopListing['state'] {
  if (live) return status === 'waiting' ? 'waiting' : 'running';
  if (status === undefined || status === 'queued') return 'queued';
  if (status === 'stopped') return 'stopped';
  // Running or waiting by its checkpoint, with nobody running it: the process ended without its last word.
  return 'interrupted';
}

/** The lines `ralph --list` prints: one per loop, or a line saying there is none. */
export function formatLoops(loops: readonly LoopListing[]): string {
  if (loops.length === 0) return 'no ralph loops here yet: wiggum ralph "PROMPT" --change ID starts one\n';
  const width = Math.max(...loops.map((loop) => loop.change.length));
  const lines = loops.map((loop) => {
    const iterations = `iteration ${loop.iteration}${loop.maxIterations === null ? '' : ` of ${loop.maxIterations}`}`;
    const who = loop.pid === null ? '' : ` (pid ${loop.pid})`;
    const when = loop.updated === null ? '' : `, updated ${loop.updated}`;
    return `${loop.change.padEnd(width)}  ${loop.state.padEnd(11)}  ${iterations}${who}${when}`;
  });
  return `${lines.join('\n')}\n`;
}

function names(folder: string): string[] {
  try {
    return readdirSync(folder).filter(isTaskFileName).sort();
  } catch {
    return [];
  }
}
