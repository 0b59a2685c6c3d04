import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { WiggumError } from '../errors.js';
import type { Task } from '../task/parse.js';
import { readTaskFile } from '../task/read.js';
import { isTaskFileName } from './names.js';

/**
 * The task with id `id` in one of `folders`: `<id>.md` when it exists and has that id, else the
 * first file whose frontmatter or file name gives that id. E_TASK_NOT_FOUND otherwise.
 */
export async function findTask(id: string, folders: string[]): Promise<Task> {
  for (const folder of folders) {
    const direct = await parsed(join(folder, `${id}.md`));
    if (direct?.id === id) return direct;
  }
  for (const folder of folders) {
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names.filter(isTaskFileName).sort()) {
      const task = await parsed(join(folder, name));
      if (task?.id === id) return task;
    }
  }
  throw new WiggumError('E_TASK_NOT_FOUND', `no task with the id "${id}" in ${folders.join(', ')}: check the id with wiggum status`, { details: { id } });
}

async function parsed(file: string): Promise<Task | null> {
  const read = await readTaskFile(file).catch(() => null);
  return read?.result.ok === true ? read.result.task : null;
}
