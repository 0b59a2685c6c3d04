import { chmodSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { WiggumError, isWiggumError } from '../../src/errors.js';
import { writeFileAtomic, writeFileAtomicSync } from '../../src/store/atomic-write.js';
import { appendJsonLine, readJsonLines } from '../../src/store/json-lines.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('writeFileAtomic', () => {
  test('creates and replaces a file', async () => {
    const file = join(tempDir(), 'a.md');
    await writeFileAtomic(file, 'one');
    await writeFileAtomic(file, 'two');
    expect(readFileSync(file, 'utf8')).toBe('two');
  });

  test('renameAfter: the new text shows only once the write it waits for is done', async () => {
    const dir = tempDir();
    const file = join(dir, 'task.md');
    writeFileSync(file, 'checkpoint 1');
    // A thenable, so the test sees the moment the write starts waiting on it (after its own fsync).
    let keep = (): void => undefined;
    let waiting = (): void => undefined;
    const reached = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    const historyKept = {
      then(resolve: () => void) {
        keep = resolve;
        waiting();
      },
    } as unknown as Promise<void>;
    const written = writeFileAtomic(file, 'checkpoint 2', { renameAfter: historyKept });
    await reached;
    expect(readFileSync(file, 'utf8')).toBe('checkpoint 1');
    keep();
    await written;
    expect(readFileSync(file, 'utf8')).toBe('checkpoint 2');
  });

  test('renameAfter: when the write it waits for fails, nothing shows and its error is thrown', async () => {
    const dir = tempDir();
    const file = join(dir, 'task.md');
    writeFileSync(file, 'checkpoint 1');
    const failed = new WiggumError('E_WRITE', 'could not write history.jsonl');
    await expect(writeFileAtomic(file, 'checkpoint 2', { renameAfter: Promise.reject(failed) })).rejects.toBe(failed);
    expect(readFileSync(file, 'utf8')).toBe('checkpoint 1');
    expect(readdirSync(dir)).toEqual(['task.md']);
  });

  test('deferFolderSync: the new text shows at once, and the folder fsync is handed over to be waited for', async () => {
    const file = join(tempDir(), 'task.md');
    writeFileSync(file, 'checkpoint 1');
    const handedOver: Promise<void>[] = [];
    await writeFileAtomic(file, 'checkpoint 2', { deferFolderSync: (synced) => handedOver.push(synced) });
    expect(readFileSync(file, 'utf8')).toBe('checkpoint 2');
    expect(handedOver).toHaveLength(1);
    await expect(handedOver[0]).resolves.toBeUndefined();
  });

  test('keeps the mode of the file it replaces', async () => {
    const file = join(tempDir(), 'a.md');
    writeFileSync(file, 'x');
    chmodSync(file, 0o600);
    await writeFileAtomic(file, 'y');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test.each([
    ['async', (path: string) => writeFileAtomic(path, 'evil')],
    ['sync', (path: string) => Promise.resolve().then(() => writeFileAtomicSync(path, 'evil'))],
  ])('refuses to write through a symlink (%s)', async (_kind, write) => {
    const dir = tempDir();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious');
    const link = join(dir, 'task.md');
    symlinkSync(victim, link);
    const error = await write(link).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isWiggumError(error, 'E_SYMLINK_REFUSED')).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
  });

  test('a write into a missing folder fails with a WiggumError and leaves nothing behind', async () => {
    const error = await writeFileAtomic(join(tempDir(), 'missing', 'a.md'), 'x').catch((e: unknown) => e);
    expect(isWiggumError(error, 'E_WRITE')).toBe(true);
  });
});

describe('JSON lines', () => {
  test('appends and reads back in order', async () => {
    const file = join(tempDir(), 'h.jsonl');
    for (let n = 0; n < 5; n += 1) await appendJsonLine(file, { n });
    expect(await readJsonLines(file)).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })));
  });

  test('a missing file reads as empty', async () => {
    expect(await readJsonLines(join(tempDir(), 'none.jsonl'))).toEqual([]);
  });

  test('a corrupt complete line is reported with file and line, never skipped', async () => {
    const file = join(tempDir(), 'h.jsonl');
    writeFileSync(file, '{"n":1}\nnot json\n{"n":3}\n');
    const error = await readJsonLines(file).catch((e: unknown) => e);
    expect(isWiggumError(error, 'E_MEMORY_CORRUPT')).toBe(true);
    expect((error as Error).message).toContain(`${file}:2:`);
  });
});
