import { describe, expect, test } from 'vitest';
import { appendWithin, cutSection, foldReports } from '../../src/task/note-room.js';

const bytes = (text: string): number => Buffer.byteLength(text);
const user = '---\ntitle: t\n---\n# My task\n\n- [ ] S-1 step\n';
const report = (n: number, size: number): string => `## Failure report\n\n- Reason: run ${n}.\n\n${'r'.repeat(size)}\n`;

describe('a note stays under the task-size limit', () => {
  test('a report that fits is appended as it is', () => {
    expect(appendWithin(user, report(1, 10), '\n', 10_000)).toBe(`${user}\n${report(1, 10)}`);
  });

  test('earlier reports fold to one line each; the user text and later headings stay', () => {
    const text = `${user}\n${report(1, 5000)}\n## Answer\n\nmine\n\n${report(2, 5000)}`;
    const folded = foldReports(text, '\n');
    expect(folded.startsWith(user)).toBe(true);
    expect(folded).toContain('## Answer\n\nmine\n');
    expect(folded).not.toContain('rrrr');
    expect(folded.match(/earlier wiggum report was folded/g)).toHaveLength(2);
  });

  test('retried again and again, the note never passes the limit', () => {
    let text = user;
    for (let run = 1; run <= 30; run += 1) {
      text = appendWithin(text, report(run, 3000), '\n', 10_000);
      expect(bytes(text)).toBeLessThanOrEqual(10_000);
      expect(text).toContain(`run ${run}.`);
    }
    expect(text.startsWith(user)).toBe(true);
  });

  test('a note near the limit of its own: the report is cut to the room left, and says so', () => {
    const near = `${user}${'u'.repeat(9000)}\n`;
    const text = appendWithin(near, report(1, 5000), '\n', 10_000);
    expect(bytes(text)).toBeLessThanOrEqual(10_000);
    expect(text.startsWith(near)).toBe(true);
    expect(text).toContain('## Failure report');
    expect(text).toContain('cut to keep this note under');
  });

  test('a note already full: no report, the text unchanged', () => {
    const full = `${user}${'u'.repeat(10_000)}\n`;
    expect(appendWithin(full, report(1, 100), '\n', 10_000)).toBe(full);
  });

  test('a cut inside a code fence closes the fence', () => {
    const section = `## Failure report\n\n\`\`\`\`text\n${'line\n'.repeat(200)}\`\`\`\`\n`;
    const cut = cutSection(section, 400, '\n');
    expect(bytes(cut)).toBeLessThanOrEqual(400);
    expect(cut.match(/^````/gm)).toHaveLength(2);
  });
});
