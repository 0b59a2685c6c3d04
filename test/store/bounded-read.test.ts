import { execFileSync } from 'node:child_process';
import { createWriteStream, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { describe, expect, test } from 'vitest';
import { readBounded, readBoundedSync } from '../../src/store/bounded-read.js';
import { tempDir } from '../helpers/temp-dir.js';

const MiB = 1024 * 1024;

/** A big file written for real, in chunks. */
async function bigFile(path: string, mib: number): Promise<void> {
  const out = createWriteStream(path);
  const chunk = Buffer.alloc(MiB, 'x');
  for (let i = 0; i < mib; i += 1)
    if (!out.write(chunk)) await new Promise<void>((ok) => out.once('drain', () => ok()));
  out.end();
  await finished(out);
}

describe('a bounded read', () => {
  test.each([
    ['async', readBounded],
    [
      'sync',
      (path: string, limit: number, options?: { noFollow?: boolean }) =>
        new Promise((ok) => ok(readBoundedSync(path, limit, options))),
    ],
  ])('%s: text within the limit, missing, over the limit by its size, a FIFO, a link refused', async (_name, read) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'small.txt'), 'hello');
    await bigFile(join(dir, 'big.txt'), 20);
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    symlinkSync(join(dir, 'small.txt'), join(dir, 'link'));
    expect(await read(join(dir, 'small.txt'), 5)).toEqual({ kind: 'text', text: 'hello' });
    expect(await read(join(dir, 'small.txt'), 4)).toEqual({ kind: 'too-large', size: 5 });
    expect(await read(join(dir, 'none.txt'), 4)).toEqual({ kind: 'missing' });
    expect(await read(join(dir, 'big.txt'), MiB)).toEqual({ kind: 'too-large', size: 20 * MiB });
    expect(await read(join(dir, 'pipe'), MiB)).toEqual({ kind: 'not-a-file' });
    expect(await read(join(dir, 'link'), MiB)).toEqual({ kind: 'text', text: 'hello' });
    await expect(read(join(dir, 'link'), MiB, { noFollow: true })).rejects.toMatchObject({ code: 'ELOOP' });
  });
});
