import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, Page, Request } from 'playwright-core';
import { onTestFinished } from 'vitest';
import { REPO_ROOT } from './child.js';

/** Where the browser tests leave their screenshots (gitignored): look at them after a run. */
export const ARTIFACTS = join(REPO_ROOT, 'test-artifacts');

/** Debian's `chromium` on PATH; playwright-core brings no browser of its own. */
export function chromiumPath(): string {
  try {
    const path = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    if (path !== '') return path;
  } catch {
    // said below
  }
  throw new Error("chromium is not on PATH: run npm run install:chromium (it installs Debian's chromium package)");
}

/** A headless Chromium, closed when the current test finishes. */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  onTestFinished(() => browser.close());
  return browser;
}

/** A page and what it did: every request it sent, and every error its script threw or logged. */
export interface WatchedPage {
  page: Page;
  requests: string[];
  errors: string[];
}

/**
 * A page with its own context (its own sessionStorage), the given viewport (a phone's: `mobile`) and
 * colour scheme, its requests and errors recorded.
 */
export async function watchedPage(
  browser: Browser,
  viewport: { width: number; height: number },
  options: { mobile?: boolean; dark?: boolean } = {},
): Promise<WatchedPage> {
  const mobile = options.mobile === true;
  const context = await browser.newContext({
    viewport,
    isMobile: mobile,
    hasTouch: mobile,
    colorScheme: options.dark === true ? 'dark' : 'light',
  });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request: Request) => requests.push(request.url()));
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { page, requests, errors };
}

/** A screenshot of the whole page under test-artifacts/; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
