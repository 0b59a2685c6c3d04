import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { systemErrorCode } from '../errors.js';

const CONFIG = `# This vault's settings, merged over wiggum's built-in config/default.yaml
# (see that file for every setting and its meaning). Check them with: wiggum validate
#
# persistence_loop:
#   max_iterations: 30
# harness:
#   default: claude        # demo runs the built-in demo agent (no API key needed)
# vault:
#   allowed_workdirs: [~/code]
# checks:
#   tests:
#     command: npm
#     args: [test]
`;

const SAMPLE = `---
title: Try wiggum with the demo agent
harness: demo
max_iterations: 10
---
# Try wiggum with the demo agent

The demo agent marks one story done per iteration, then prints the completion promise.
Change \`harness:\` to \`claude\` (or another configured agent) and give it real work.

- [ ] US-001 Read the task list and the progress log
- [ ] US-002 Mark a story as passing
`;

/**
 * \`wiggum init [DIR]\`: the vault folders, a commented config and a sample task. Nothing that
 * exists is overwritten; returns what was created.
 */
export async function scaffoldVault(root: string): Promise<string[]> {
  const created: string[] = [];
  for (const folder of ['Approved', 'Done', 'Rejected', '.wiggum']) {
    const path = join(root, folder);
    if ((await mkdir(path, { recursive: true })) !== undefined) created.push(`${folder}/`);
  }
  for (const [file, text] of [
    ['.wiggum/config.yaml', CONFIG],
    ['Approved/try-wiggum.md', SAMPLE],
  ] as const) {
    try {
      await writeFile(join(root, file), text, { flag: 'wx' });
      created.push(file);
    } catch (error) {
      if (systemErrorCode(error) !== 'EEXIST') throw error;
    }
  }
  return created;
}
