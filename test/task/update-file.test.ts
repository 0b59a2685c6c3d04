import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isWiggumError } from '../../src/errors.js';
import { updateTaskFile } from '../../src/task/update-file.js';
import type { TaskFileWrite } from '../../src/task/update-file.js';
import { tempDir } from '../helpers/temp-dir.js';

const original = "---\ntitle: Dark mode # the user's comment\nharness: demo\n---\n# Dark mode\n\n- [ ] US-001 Theme\n";
const write: TaskFileWrite = {
  keys: { state: 'Approved', persistence_loop: { status: 'running', iteration: 1, max_iterations: 10 } },
};

function taskFile(text = original): string {
  const file = join(tempDir(), 'dark-mode.md');
  writeFileSync(file, text);
  return file;
}

describe('updateTaskFile', () => {
  test('writes only the owned keys when the file is as last read', async () => {
    const file = taskFile();
    const { task, merged } = await updateTaskFile(file, original, write);
    expect(merged).toBe(false);
    expect(task.frontmatter.persistence_loop?.iteration).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(
      "---\ntitle: Dark mode # the user's comment\nharness: demo\nstate: Approved\npersistence_loop:\n  status: running\n  iteration: 1\n  max_iterations: 10\n---\n# Dark mode\n\n- [ ] US-001 Theme\n",
    );
  });

  test('merges a change the user made since the last read instead of overwriting it', async () => {
    const file = taskFile();
    const edited = original
      .replace('harness: demo', 'harness: demo\npriority: high # bumped')
      .replace('- [ ] US-001 Theme', '- [ ] US-001 Theme\n- [ ] US-002 Added by the user');
    writeFileSync(file, edited);
    const { merged } = await updateTaskFile(file, original, write);
    expect(merged).toBe(true);
    const now = readFileSync(file, 'utf8');
    expect(now).toContain('priority: high # bumped');
    expect(now).toContain('- [ ] US-002 Added by the user');
    expect(now).toContain('  iteration: 1');
  });

  test('refuses to overwrite a user edit that does not parse, and leaves it byte for byte', async () => {
    const file = taskFile();
    const halfway = '---\ntitle: Dark mode\nharness: [demo\n---\nbody\n';
    writeFileSync(file, halfway);
    const error = await updateTaskFile(file, original, write).catch((e: unknown) => e);
    expect(isWiggumError(error, 'E_CHECKPOINT_CONFLICT')).toBe(true);
    expect((error as Error).message).toContain(`${file}:4:1: Flow sequence`);
    expect(readFileSync(file, 'utf8')).toBe(halfway);
  });

  test('a deleted task is reported as gone', async () => {
    const file = taskFile();
    rmSync(file);
    const error = await updateTaskFile(file, original, write).catch((e: unknown) => e);
    expect(isWiggumError(error, 'E_TASK_GONE')).toBe(true);
  });

  // The rename waits for the fsyncs (and for `after`, the history line a checkpoint counts): on a
  // busy disk that takes long enough for a person to save or delete the file meanwhile.
  test('a task deleted while its checkpoint waits to be renamed stays deleted', async () => {
    const file = taskFile();
    let release = (): void => undefined;
    const after = new Promise<void>((resolve) => (release = resolve));
    const writing = updateTaskFile(file, original, { ...write, after }).catch((e: unknown) => e);
    rmSync(file);
    release();
    expect(isWiggumError(await writing, 'E_TASK_GONE')).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dirname(file))).toEqual([]);
  });

  test('an edit saved while the checkpoint waits to be renamed is merged, not undone', async () => {
    const file = taskFile();
    let release = (): void => undefined;
    const after = new Promise<void>((resolve) => (release = resolve));
    const writing = updateTaskFile(file, original, { ...write, after });
    writeFileSync(file, original.replace('- [ ] US-001 Theme', '- [ ] US-001 Theme\n- [ ] US-002 Saved meanwhile'));
    release();
    expect((await writing).merged).toBe(true);
    const now = readFileSync(file, 'utf8');
    expect(now).toContain('- [ ] US-002 Saved meanwhile');
    expect(now).toContain('  iteration: 1');
  });

  test('appends a report section after everything the user wrote', async () => {
    const file = taskFile();
    await updateTaskFile(file, original, { ...write, section: '## Completion summary\n\n- iterations: 1\n' });
    const now = readFileSync(file, 'utf8');
    expect(now.endsWith('- [ ] US-001 Theme\n\n## Completion summary\n\n- iterations: 1\n')).toBe(true);
  });

  test('keeps CRLF line endings in an appended report', async () => {
    const crlf = original.replace(/\n/g, '\r\n');
    const file = taskFile(crlf);
    await updateTaskFile(file, crlf, { ...write, section: '## Failure report\n\nreason\n' });
    const now = readFileSync(file, 'utf8');
    expect(now.replace(/\r\n/g, '')).not.toContain('\n');
    expect(now).toContain('## Failure report\r\n\r\nreason\r\n');
  });
});
