#!/usr/bin/env node
// Before every build: tsc never deletes the output of a source file that was moved or removed, and
// a stale dist/ module would keep working here while a fresh clone fails.
import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
