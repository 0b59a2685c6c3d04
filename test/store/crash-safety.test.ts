import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readJsonLines } from '../../src/store/json-lines.js';
import { REPO_ROOT, killHard, requireBuild, waitForLines } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';

const writers = join(REPO_ROOT, 'test', 'fixtures', 'writers');

describe('SIGKILL in the middle of writes', () => {
  test('an atomically written file is always exactly the old or the new version', async () => {
    requireBuild();
    const dir = tempDir();
    const target = join(dir, 'task.md');
    // Different sizes, so a torn or mixed write could not pass for either version.
    const versionA = `---\nversion: A\n---\n${'a'.repeat(64 * 1024)}\n`;
    const versionB = `---\nversion: B\n---\n${'b'.repeat(3)}\n`;
    writeFileSync(target, versionA);
    let writes = 0;
    for (let round = 0; round < 12; round += 1) {
      const child = spawn(process.execPath, [join(writers, 'atomic-writer.mjs'), target, versionA, versionB], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      // Kill after a varying number of completed writes, so the kill lands at varying points of a write.
      const after = 50 + ((round * 37) % 150);
      await waitForLines(child, after);
      await killHard(child);
      writes += after;
      const content = readFileSync(target, 'utf8');
      expect(content === versionA || content === versionB).toBe(true);
    }
    expect(writes).toBeGreaterThan(1000);
    // Temp files a kill left behind are dotfiles ending in .tmp, which nothing in wiggum reads.
    for (const name of readdirSync(dir)) expect(name === 'task.md' || /^\.task\.md\..+\.tmp$/.test(name)).toBe(true);
  });

  test('a JSON-lines log shows only whole lines, and the next append repairs a torn tail', async () => {
    requireBuild();
    const target = join(tempDir(), 'history.jsonl');
    let reported = 0;
    for (let round = 0; round < 6; round += 1) {
      const child = spawn(process.execPath, [join(writers, 'jsonl-writer.mjs'), target], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const after = 40 + round * 25;
      await waitForLines(child, after);
      await killHard(child);
      reported += after;
      const lines = (await readJsonLines(target)) as { n: number }[];
      expect(lines.length).toBeGreaterThanOrEqual(reported);
    }
    // Simulate a write torn by a power cut: a line without its newline.
    writeFileSync(target, readFileSync(target, 'utf8') + '{"n": 999999, "pad": "tor');
    const beforeRepair = await readJsonLines(target);
    const { appendJsonLine } = await import('../../src/store/json-lines.js');
    await appendJsonLine(target, { n: -1 });
    const after = (await readJsonLines(target)) as { n: number }[];
    expect(after.length).toBe(beforeRepair.length + 1);
    expect(after.at(-1)).toEqual({ n: -1 });
    expect(readFileSync(target, 'utf8')).not.toContain('"tor');
  });
});
