import { existsSync, readFileSync, renameSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { requireBuild, runCli } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { makeVault } from '../helpers/vault.js';
import { waitFor, waitForFile } from '../helpers/wait.js';

const REVIEWED = '---\ntitle: Toggle\nreview: true\nmax_iterations: 5\n---\n- [ ] S-1 Add the toggle\n';

describe('review before Done, with the real daemon and the fake agent', () => {
  const daemons = drainedAfterEach();

  test('review: true sends a complete task to Review/ with its summary; moved to Done/ by hand it is approved and never runs again', async () => {
    requireBuild();
    const vault = await makeVault({ fake: { FAKE_COMPLETE_AFTER: '1' } });
    vault.task('toggle', REVIEWED);
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.waitForEvent('task.review');
    const inReview = join(vault.root, 'Review', 'toggle.md');
    const text = readFileSync(inReview, 'utf8');
    expect(text).toMatch(/^state: Review$/m);
    expect(text).toMatch(/^ {2}status: review$/m);
    expect(text).toContain('## Completion summary');
    expect(existsSync(join(vault.layout.done, 'toggle.md'))).toBe(false);

    renameSync(inReview, join(vault.layout.done, 'toggle.md'));
    await daemon.waitForEvent('task.approved');
    const approved = readFileSync(join(vault.layout.done, 'toggle.md'), 'utf8');
    expect(approved).toMatch(/^state: Done$/m);
    expect(approved).toMatch(/^ {2}status: done$/m);
    expect(existsSync(join(vault.marks, 'run-2'))).toBe(false);
  });

  test('wiggum request-changes: the next prompt carries the request, a new claim brings it back to Review/; wiggum approve moves it to Done/', async () => {
    requireBuild();
    const vault = await makeVault({ fake: { FAKE_COMPLETE_AFTER: '1' } });
    vault.task('toggle', REVIEWED);
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.waitForEvent('task.review');
    const asked = await runCli(['request-changes', 'toggle', 'Add a unit test for the toggle.', '--vault', vault.root]);
    expect(asked.code).toBe(0);
    await daemon.waitForEvent('task.changes-requested');
    await waitForFile(join(vault.marks, 'run-2'));
    expect(readFileSync(join(vault.marks, 'run-2'), 'utf8')).toContain('Add a unit test for the toggle.');
    await daemon.waitForCount((line) => line.event === 'task.review', 2, 'a second task.review');
    expect(existsSync(join(vault.root, 'Review', 'toggle.md'))).toBe(true);

    const approved = await runCli(['approve', 'toggle', '--vault', vault.root]);
    expect(approved.code).toBe(0);
    const done = readFileSync(join(vault.layout.done, 'toggle.md'), 'utf8');
    expect(done).toMatch(/^state: Done$/m);
    expect(existsSync(join(vault.root, 'Review', 'toggle.md'))).toBe(false);
    expect(existsSync(join(vault.marks, 'run-3'))).toBe(false);
  });

  test('a change request written under ## Changes requested and the file moved back goes to the loop; moved back without one it waits', async () => {
    requireBuild();
    const vault = await makeVault({ fake: { FAKE_COMPLETE_AFTER: '1' } });
    vault.task('toggle', REVIEWED);
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.waitForEvent('task.review');
    const inReview = join(vault.root, 'Review', 'toggle.md');
    renameSync(inReview, join(vault.layout.approved, 'toggle.md'));
    await daemon.waitForEvent('task.review-returned-without-request');
    expect(existsSync(join(vault.marks, 'run-2'))).toBe(false);

    appendFileSync(join(vault.layout.approved, 'toggle.md'), '\n## Changes requested\n\nRename the button to Save.\n');
    await waitForFile(join(vault.marks, 'run-2'));
    expect(readFileSync(join(vault.marks, 'run-2'), 'utf8')).toContain('Rename the button to Save.');
    await daemon.waitForCount((line) => line.event === 'task.review', 2, 'a second task.review');
    expect(existsSync(inReview)).toBe(true);
  });

  test('review.max_pending: 1 holds a new task while one waits for review; approving it lets the held task run', async () => {
    requireBuild();
    const vault = await makeVault({
      fake: { FAKE_COMPLETE_AFTER: '1' },
      config: { review: { max_pending: 1 }, daemon: { concurrency: 4 } },
    });
    vault.task('first', REVIEWED);
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.waitForEvent('task.review');
    vault.task('second', '---\ntitle: Second\n---\n- [ ] S-1 Something\n');
    await daemon.waitForEvent('review.holding', { taskId: 'second' });
    const status = (await runCli(['status', '--vault', vault.root])).stdout;
    expect(status.split('\n').find((line) => line.includes('second'))).toMatch(/review/i);
    expect(existsSync(join(vault.layout.done, 'second.md'))).toBe(false);

    expect((await runCli(['approve', 'first', '--vault', vault.root])).code).toBe(0);
    await daemon.waitForEvent('review.released');
    await waitForFile(join(vault.layout.done, 'second.md'));
    await waitFor(() => existsSync(join(vault.layout.done, 'first.md')), 'first in Done/');
  });
});
