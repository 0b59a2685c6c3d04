import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { makeVault } from '../helpers/vault.js';

const TASK = '---\ntitle: One story\n---\n- [ ] US-001 One\n';

describe('task ids through wiggum run', () => {
  test('a name with accents runs under an id that keeps its letters; one in another script under a short id', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const cafe = await runCli(['run', vault.task('Café crème', TASK), '--no-stream']);
    expect(cafe.code).toBe(0);
    const japanese = await runCli(['run', vault.task('日本語のタスク', TASK), '--no-stream']);
    expect(japanese.code).toBe(0);
    const sessions = readdirSync(vault.layout.sessions).sort();
    expect(sessions).toContain('Cafe-creme');
    const short = sessions.find((name) => name !== 'Cafe-creme');
    expect(short).toMatch(/^task-han-kana-[0-9a-z]{6}$/);
    expect(readdirSync(vault.layout.done).sort()).toEqual(['Café crème.md', '日本語のタスク.md']);
  });
});
