#!/usr/bin/env node
// Makes sure `bwrap` (bubblewrap) is on PATH: every agent run is confined with it by default
// (docs/sandbox.md), and the tests run their agents under it for real (test/sandbox/). `npm test`
// runs it before vitest; `npm run install:bubblewrap` runs it alone.
import { ensureDebianPackage } from './lib/debian-package.mjs';

ensureDebianPackage({
  label: 'bubblewrap',
  binary: 'bwrap',
  pkg: 'bubblewrap',
  usedBy: 'the sandbox of every agent run and its tests',
  orElse: 'install bubblewrap 0.4 or later with your package manager',
  npmScript: 'install:bubblewrap',
});
