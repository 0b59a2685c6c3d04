import { describe, expect, test } from 'vitest';
import { parseTask } from '../../src/task/parse.js';
import { withOwnedKeys } from '../../src/task/render.js';

describe('a frontmatter of {} (no properties, as Obsidian writes it)', () => {
  test.each([
    ['\n', '---\n{}\n---\nJust do it.\n'],
    ['\r\n', '---\r\n{}\r\n---\r\nJust do it.\r\n'],
  ])('is an empty frontmatter; wiggum keys replace the {} and the body stays (eol %j)', (eol, text) => {
    const parsed = parseTask('/v/Approved/plain.md', text);
    if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('; '));
    expect(parsed.task.frontmatter).toEqual({});
    const written = withOwnedKeys(parsed.task, {
      state: 'Approved',
      persistence_loop: { status: 'running', iteration: 1, max_iterations: 5 },
    });
    expect(written).toBe(
      `---${eol}state: Approved${eol}persistence_loop:${eol}  status: running${eol}  iteration: 1${eol}  max_iterations: 5${eol}---${eol}Just do it.${eol}`,
    );
    const again = parseTask('/v/Approved/plain.md', written);
    expect(again.ok && again.task.frontmatter.state).toBe('Approved');
  });

  test('a {…} mapping with properties is still refused, with a message saying how to write it', () => {
    const parsed = parseTask('/v/Approved/flow.md', '---\n{title: x}\n---\nbody\n');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems[0]?.message).toContain('write the frontmatter as key: value lines');
  });
});
