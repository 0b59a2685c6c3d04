#!/usr/bin/env node
// Makes sure Debian's `chromium` is on PATH: the web page's tests (test/http/page.test.ts) drive a real
// headless Chromium through playwright-core, which downloads no browser of its own. `npm test` runs
// it before vitest; `npm run install:chromium` runs it alone.
import { ensureDebianPackage } from './lib/debian-package.mjs';

ensureDebianPackage({
  label: 'chromium',
  binary: 'chromium',
  pkg: 'chromium',
  usedBy: "the web page's tests",
  orElse: 'put a Chromium or Chrome build named chromium on PATH',
  npmScript: 'install:chromium',
});
