import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { Clock } from '../time/clock.js';
import { DiskMemoryStore } from './disk-store.js';
import { sessionPaths } from './paths.js';
import type { MemoryStore } from './store.js';

/**
 * Context for a task whose session does not exist yet (added before its first iteration). It waits
 * in `.wiggum/pending-context/<id>.md` and is moved into the session when the loop opens it.
 */
function pendingFile(stateDir: string, taskId: string): string {
  return join(stateDir, 'pending-context', `${taskId}.md`);
}

/** Adds (or with `text === null` clears) a task's mid-loop context; returns where it went. */
export async function changeContext(stateDir: string, taskId: string, text: string | null, clock: Clock): Promise<'session' | 'pending'> {
  const paths = sessionPaths(join(stateDir, 'sessions'), taskId);
  if (existsSync(paths.sessionFile)) {
    const store = new DiskMemoryStore(paths, clock);
    if (text === null) await store.clearContext();
    else await store.addContext(text);
    return 'session';
  }
  const file = pendingFile(stateDir, taskId);
  if (text === null) {
    await rm(file, { force: true });
  } else {
    await mkdir(join(stateDir, 'pending-context'), { recursive: true });
    const before = await readFile(file, 'utf8').catch(() => '');
    await writeFileAtomic(file, `${before}${before === '' || before.endsWith('\n') ? '' : '\n'}${text.trim()}\n`);
  }
  return 'pending';
}

/** Moves context waiting for this task into its (now open) session. */
export async function adoptPendingContext(stateDir: string, taskId: string, store: MemoryStore): Promise<boolean> {
  const file = pendingFile(stateDir, taskId);
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return false;
  if (text.trim() !== '') await store.addContext(text.trim());
  await rm(file, { force: true });
  return true;
}
