import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/child.js';
import { historyOf } from '../helpers/history.js';
import { tempDir } from '../helpers/temp-dir.js';
import { NO_TOTAL_BUDGET } from '../helpers/wait.js';

const AGENT = join(REPO_ROOT, 'test', 'fixtures', 'sandbox', 'big-writer.sh');

describe("a confined run's file limits", () => {
  test(
    'the open-file limit is set soft and hard; a file past the size limit ends the iteration as a limit hit',
    async () => {
      const vault = join(tempDir('wiggum-limits-'), 'vault');
      for (const folder of ['Approved', 'Done', 'Rejected', '.wiggum'])
        mkdirSync(join(vault, folder), { recursive: true });
      writeFileSync(
        join(vault, '.wiggum', 'config.yaml'),
        `sandbox:\n  limits:\n    open_files: 321\n    file_size: 1MiB\nharnesses:\n  w:\n    kind: command\n    command: ${AGENT}\n`,
      );
      writeFileSync(join(vault, 'Approved', 'big.md'), '---\ntitle: big\nharness: w\nmax_iterations: 1\n---\n# big\n');
      const ran = await runCli(['run', join(vault, 'Approved', 'big.md'), '--vault', vault]);
      expect(ran.stdout + ran.stderr).toContain('nofile 321 hard 321');
      const [first] = historyOf(join(vault, '.wiggum', 'sessions'), 'big');
      expect(first).toMatchObject({ sandbox: 'bwrap', outcome: 'limit-exceeded', error: { code: 'E_SANDBOX_LIMIT' } });
      expect(first?.error?.message).toMatch(/file size/);
      const written = statSync(join(vault, '.wiggum', 'workspaces', 'big', 'big.bin')).size;
      expect(written).toBeLessThanOrEqual(1024 * 1024);
      expect(readFileSync(join(vault, 'Rejected', 'big.md'), 'utf8')).toMatch(/file size/);
    },
    NO_TOTAL_BUDGET,
  );
});
