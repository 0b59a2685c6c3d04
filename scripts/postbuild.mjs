#!/usr/bin/env node
// tsc does not keep the executable bit: the CLI and the demo agent are run directly.
import { chmodSync } from 'node:fs';

for (const file of ['dist/cli/main.js', 'dist/demo/agent.js']) chmodSync(file, 0o755);
