import { existsSync, linkSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { moveWithoutClobber } from '../../src/vault/move.js';
import { tempDir } from '../helpers/temp-dir.js';

interface Case {
  name: string;
  /** Builds the folders under `root`; returns the source file and the destination folder to pass. */
  arrange: (root: string) => { source: string; destination: string };
  /** The names each folder holds afterwards (relative to root). */
  after: Record<string, string[]>;
  /** The returned path, relative to root. */
  returned: string;
}

const TEXT = "the user's own bytes\n";

function file(path: string, text = TEXT): string {
  writeFileSync(path, text);
  return path;
}

function folders(root: string, ...names: string[]): void {
  for (const name of names) mkdirSync(join(root, name), { recursive: true });
}

const CASES: Case[] = [
  {
    name: 'a plain move',
    arrange: (root) => (
      folders(root, 'Approved', 'Done'),
      { source: file(join(root, 'Approved', 'x.md')), destination: join(root, 'Done') }
    ),
    after: { Approved: [], Done: ['x.md'] },
    returned: 'Done/x.md',
  },
  {
    name: 'a clash gets a suffix; the file there is kept',
    arrange: (root) => (
      folders(root, 'Approved', 'Done'),
      file(join(root, 'Done', 'x.md'), 'older\n'),
      { source: file(join(root, 'Approved', 'x.md')), destination: join(root, 'Done') }
    ),
    after: { Approved: [], Done: ['x-2.md', 'x.md'] },
    returned: 'Done/x-2.md',
  },
  {
    name: 'into the folder it is already in: nothing moves',
    arrange: (root) => (
      folders(root, 'Done'),
      { source: file(join(root, 'Done', 'x.md')), destination: join(root, 'Done') }
    ),
    after: { Done: ['x.md'] },
    returned: 'Done/x.md',
  },
  {
    name: 'into its own folder by another spelling of the path',
    arrange: (root) => (
      folders(root, 'Done', 'Approved'),
      { source: file(join(root, 'Done', 'x.md')), destination: join(root, 'Approved', '..', 'Done', '.') }
    ),
    after: { Done: ['x.md'], Approved: [] },
    returned: 'Done/x.md',
  },
  {
    name: 'into its own folder through a symbolic link to it',
    arrange: (root) => {
      folders(root, 'Done');
      symlinkSync(join(root, 'Done'), join(root, 'Finished'));
      return { source: file(join(root, 'Done', 'x.md')), destination: join(root, 'Finished') };
    },
    after: { Done: ['x.md'] },
    returned: 'Done/x.md',
  },
  {
    name: 'from a symbolic link to its folder into the folder itself',
    arrange: (root) => {
      folders(root, 'Done');
      symlinkSync(join(root, 'Done'), join(root, 'Finished'));
      file(join(root, 'Done', 'x.md'));
      return { source: join(root, 'Finished', 'x.md'), destination: join(root, 'Done') };
    },
    after: { Done: ['x.md'] },
    returned: 'Finished/x.md',
  },
  {
    name: 'a twin left by a crash between link and unlink (a hard link of itself): the move is finished',
    arrange: (root) => {
      folders(root, 'Approved', 'Done');
      const source = file(join(root, 'Approved', 'x.md'));
      linkSync(source, join(root, 'Done', 'x.md'));
      return { source, destination: join(root, 'Done') };
    },
    after: { Approved: [], Done: ['x.md'] },
    returned: 'Done/x.md',
  },
];

describe('moveWithoutClobber never loses the file', () => {
  test.each(CASES)('$name', async ({ arrange, after, returned }) => {
    const root = tempDir();
    const { source, destination } = arrange(root);
    const result = await moveWithoutClobber(source, destination);
    expect(result).toBe(join(root, returned));
    for (const [folder, names] of Object.entries(after)) expect(readdirSync(join(root, folder)).sort()).toEqual(names);
    expect(readFileSync(result, 'utf8')).toBe(TEXT);
  });

  test('a second move of a file already moved is a no-op too', async () => {
    const root = tempDir();
    folders(root, 'Approved', 'Done');
    const moved = await moveWithoutClobber(file(join(root, 'Approved', 'x.md')), join(root, 'Done'));
    expect(await moveWithoutClobber(moved, join(root, 'Done'))).toBe(moved);
    expect(existsSync(moved)).toBe(true);
    expect(readFileSync(moved, 'utf8')).toBe(TEXT);
  });
});
