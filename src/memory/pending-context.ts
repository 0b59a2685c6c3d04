import { existsSync } from 'node:fs';
import { mkdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { Clock } from '../time/clock.js';
import { appendContextText } from './context.js';
import { addToContextInbox, contextInboxFor } from './context-inbox.js';
import { DiskMemoryStore } from './disk-store.js';
import { DEFAULT_MEMORY_LIMITS } from './limits.js';
import { sessionPaths } from './paths.js';
import { readMemoryText } from './session-meta.js';

/**
 * Adds (or with `text === null` clears) a task's mid-loop context; returns where it went. Before
 * the task's first run there is no session yet: the text waits as a lone `context.md` in the
 * session folder, which the session takes in when it is created (`openSession`).
 */
export async function changeContext(
  stateDir: string,
  taskId: string,
  text: string | null,
  clock: Clock,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<'session' | 'pending' | 'run'> {
  const paths = sessionPaths(join(stateDir, 'sessions'), taskId);
  // Inside the task's own confined run: to the run's inbox (context-inbox.ts); a clear waits for a person.
  const inbox = contextInboxFor(env, taskId, paths.context);
  if (inbox !== null && text !== null) {
    await addToContextInbox(inbox, text);
    return 'run';
  }
  if (existsSync(paths.sessionFile)) {
    const store = new DiskMemoryStore(paths, clock);
    if (text === null) await store.clearContext();
    else await store.addContext(text);
    return 'session';
  }
  if (text === null) {
    await rm(paths.context, { force: true });
    await rmdir(paths.dir).catch(() => undefined);
  } else {
    await mkdir(paths.dir, { recursive: true });
    const before = readMemoryText(paths.context, { kind: 'context', bytes: DEFAULT_MEMORY_LIMITS.contextBytes }) ?? '';
    await writeFileAtomic(paths.context, appendContextText(before, text, clock.now()));
  }
  return 'pending';
}
