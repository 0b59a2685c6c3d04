import { existsSync, linkSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DaemonProcess } from '../helpers/daemon.js';
import { isEvent } from '../helpers/log-events.js';
import { makeVault } from '../helpers/vault.js';

const ENDED =
  '---\ntitle: Ended\nstate: Done\npersistence_loop:\n  status: done\n  iteration: 2\n  max_iterations: 5\n---\nbody\n';
const RUNNING = '---\ntitle: Linked by a backup tool\n---\nbody\n';

describe('a move to Done/ cut by a crash between its link and its unlink', () => {
  test('the next daemon finishes it: one file in Done/, none left in Approved/; other hard links are left alone', async () => {
    const vault = await makeVault();
    const ended = vault.task('ended', ENDED);
    linkSync(ended, join(vault.layout.done, 'ended.md'));
    // A hard link that is not wiggum's move: the state does not say the task ended.
    const other = vault.task('other', RUNNING);
    linkSync(other, join(vault.root, 'backup-of-other.md'));

    const daemon = DaemonProcess.start(vault.root);
    await daemon.ready();
    daemon.kill('SIGTERM');
    await daemon.exited;

    expect(existsSync(ended)).toBe(false);
    expect(readFileSync(join(vault.layout.done, 'ended.md'), 'utf8')).toBe(ENDED);
    expect(statSync(join(vault.layout.done, 'ended.md')).nlink).toBe(1);
    expect(daemon.lines.some(isEvent('task.move-finished'))).toBe(true);
    expect(readFileSync(other, 'utf8')).toBe(RUNNING);
    expect(statSync(other).nlink).toBe(2);
  });
});
