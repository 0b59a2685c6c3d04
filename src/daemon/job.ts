import type { WiggumConfig } from '../config/config.js';
import { withKeptId } from '../memory/kept-id.js';
import { idFromFileName } from '../task/id.js';
import { readTaskFile } from '../task/read.js';
import { resolveWorkdir } from '../task/workdir.js';
import type { VaultLayout } from '../vault/layout.js';
import type { Job } from './task-queue.js';

/**
 * What the scheduler needs to know about a task file before it runs: its id, its workdir (the
 * exclusivity key) and its priority. A file that does not parse, or whose workdir is invalid, still
 * becomes a job: its run rejects it with a report, and a key of its own keeps it out of others' way.
 */
export async function jobFor(
  name: string,
  file: string,
  config: WiggumConfig,
  layout: VaultLayout,
  nowMs: number,
): Promise<Job> {
  const read = await readTaskFile(file).catch(() => null);
  if (read === null || !read.result.ok) {
    const id = idFromFileName(name);
    return { id, name, file, workdir: `invalid:${name}`, priority: 0, enqueuedAtMs: nowMs };
  }
  const task = withKeptId(read.result.task, layout.sessions);
  const workdir = await resolveWorkdir(task.id, task.frontmatter.workdir, {
    vaultRoot: layout.root,
    allowedRoots: config.allowedWorkdirs,
    workspaces: layout.workspaces,
  }).catch(() => `invalid:${name}`);
  const session = task.frontmatter.persistence_loop?.session;
  return {
    id: task.id,
    name,
    file,
    workdir,
    priority: task.frontmatter.priority ?? 0,
    enqueuedAtMs: nowMs,
    ...(session === undefined ? {} : { session }),
  };
}
