import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { importObjects } from '../../src/git/sandbox-git-import.js';
import { gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A private objects folder holding one blob with `text`, as a confined agent's `git add` leaves it. */
function privateObjectsWith(root: string, name: string, text: string): string {
  const objects = join(root, name, 'objects');
  mkdirSync(objects, { recursive: true });
  execFileSync('git', ['hash-object', '-w', '--stdin'], {
    input: text,
    env: { ...process.env, GIT_OBJECT_DIRECTORY: objects },
  });
  return objects;
}

describe('importObjects', () => {
  test('two runs that made the same objects import them at once: both succeed, one pack, nothing left behind', async () => {
    const repo = gitRepo(tempDir('wiggum-import-'));
    const common = join(repo, '.git');
    const root = tempDir('wiggum-private-');
    const runs = ['a', 'b'].map((name) => {
      const work = join(root, name, 'work');
      mkdirSync(work, { recursive: true });
      return { objects: privateObjectsWith(root, name, 'the same work\n'), work };
    });
    const counts = await Promise.all(runs.map((run) => importObjects(common, run.objects, run.work)));
    expect(counts).toEqual([1, 1]);
    const sha = execFileSync('git', ['hash-object', '--stdin'], { input: 'the same work\n' }).toString().trim();
    expect(execFileSync('git', ['-C', repo, 'cat-file', '-p', sha]).toString()).toBe('the same work\n');
    const packs = readdirSync(join(common, 'objects', 'pack'));
    expect(packs.filter((file) => file.endsWith('.idx'))).toHaveLength(1);
    expect(packs.filter((file) => file.startsWith('tmp_'))).toEqual([]);
  });
});
