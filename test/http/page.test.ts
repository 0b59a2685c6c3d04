import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect, test } from 'vitest';
import { pageHtml } from '../../src/http/page.js';
import { launchChromium, screenshot, watchedPage } from '../helpers/browser.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { FAKE_AGENT, makeVault } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The web page in a real headless Chromium against a real daemon with its API on a random loopback
 * port: a task whose agent keeps writing, one that finished, one rejected and one that asks a
 * question. Every wait is on what the page or the files show; none has a budget of its own beyond
 * vitest's timeout (playwright's default timeout is off).
 */
const daemons = drainedAfterEach();

/** Markup in the agent's output, which the page must show as text and never run. */
const MARKUP = '<img src=x onerror="window.pwned=1"><b>bold</b>\n';
const UNTIL_VITEST_TIMEOUT = Number.POSITIVE_INFINITY;

const taskText = (id: string, harness?: string): string =>
  `---\ntitle: ${id}\n${harness === undefined ? '' : `harness: ${harness}\n`}max_iterations: 50\n---\n# ${id}\n\nDo the work of ${id}.\n`;

/**
 * The few DOM calls the waits below make inside the page. The project compiles without the DOM's
 * types, and a string predicate would need eval, which the page's policy forbids.
 */
interface InPage {
  document: { querySelector(selector: string): { textContent: string | null } | null };
}

/** Resolves once the element `selector` finds contains `text` (checked in the page as it changes). */
async function waitForText(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(
    (wanted) =>
      ((globalThis as unknown as InPage).document.querySelector(wanted.selector)?.textContent ?? '').includes(
        wanted.text,
      ),
    { selector, text },
  );
}

/** Resolves once the task's output box shows a `tick N` with N at least `least`. */
async function waitForTick(page: Page, id: string, least: number): Promise<void> {
  await page.waitForFunction(
    (wanted) => {
      const text = (globalThis as unknown as InPage).document.querySelector(wanted.selector)?.textContent ?? '';
      return [...text.matchAll(/tick (\d+)/g)].some((match) => Number(match[1]) >= wanted.least);
    },
    { selector: output(id), least },
  );
}

/** Resolves once the page has drawn the state again (its "updated" time changed). */
async function waitForRedraw(page: Page): Promise<void> {
  const before = (await page.locator('#updated').textContent()) ?? '';
  await page.waitForFunction(
    (was) => (globalThis as unknown as InPage).document.querySelector('#updated')?.textContent !== was,
    before,
  );
}

const output = (id: string): string => `article[data-task-id="${id}"] pre.output`;

/** The highest `tick N` the task's output box shows now. */
async function lastTick(page: Page, id: string): Promise<number> {
  const text = (await page.locator(output(id)).textContent()) ?? '';
  return Math.max(0, ...[...text.matchAll(/tick (\d+)/g)].map((match) => Number(match[1])));
}

test('the page shows the running task and its live output, what waits, asks and ended; its buttons act; nothing leaves the origin', async () => {
  const command = (env: Record<string, string>) => ({ kind: 'command', command: FAKE_AGENT, env });
  const vault = await makeVault({
    fake: { FAKE_MODE: 'tick', FAKE_TICKS: '1000000', FAKE_TICK_MS: '100', FAKE_PRINT: MARKUP },
    config: {
      daemon: { concurrency: 3, http: { listen: '127.0.0.1:0' } },
      harnesses: {
        quick: command({ FAKE_COMPLETE_AFTER: '1' }),
        // EX_CONFIG: rejected at once, no retry.
        broken: command({ FAKE_MODE: 'fail', FAKE_EXIT_CODE: '78' }),
      },
    },
  });
  mkdirSync(vault.layout.blocked, { recursive: true });
  writeFileSync(
    join(vault.layout.blocked, 'which-db.md'),
    '---\ntitle: which db\n---\n# which db\n\nPick one.\n\n## Question\n\nThe agent asked in iteration 1:\n\n> Postgres or SQLite for the <i>cache</i>?\n',
  );
  vault.task('quick-one', taskText('quick-one', 'quick'));
  vault.task('broken-one', taskText('broken-one', 'broken'));
  const daemon = DaemonProcess.start(vault.root);
  daemons.push(daemon);
  const listening = await daemon.waitForLog((line) => line.event === 'api.listening', 'api.listening', 280_000);
  const base = String(listening.url);
  expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  await daemon.waitForEvent('task.done', { taskId: 'quick-one' }, 280_000);
  await daemon.waitForEvent('task.rejected', { taskId: 'broken-one' }, 280_000);
  vault.task('live-one', taskText('live-one'));
  const token = readFileSync(join(vault.root, '.wiggum', 'http-token'), 'utf8').trim();

  const browser = await launchChromium();
  const desktop = await watchedPage(browser, { width: 1280, height: 900 });
  const { page } = desktop;
  page.setDefaultTimeout(0);
  await page.goto(`${base}/?token=${token}`);
  // The token leaves the address bar at once, kept for this tab only.
  expect(page.url()).toBe(`${base}/`);
  expect(await page.evaluate('sessionStorage.getItem("wiggum-token")')).toBe(token);

  // The running task, its facts, and its agent's output growing while we look.
  const card = page.locator('article[data-task-id="live-one"]');
  await waitForTick(page, 'live-one', 1);
  await waitForTick(page, 'live-one', (await lastTick(page, 'live-one')) + 5);
  await waitForText(page, 'article[data-task-id="live-one"] .facts', 'tokens');
  const facts = await card.locator('.facts').textContent();
  expect(facts).toMatch(/iteration \d+\/50/);
  expect(facts).toMatch(/elapsed \d+/);
  expect(facts).toContain('harness fake');

  // The agent's markup is text: shown as written, never run or rendered.
  const shown = (await page.locator(output('live-one')).textContent()) ?? '';
  expect(shown).toContain('<b>bold</b>');
  // Pieces of text that end in a newline add no empty line.
  expect(shown).toMatch(/tick 2\ntick 3\n/);
  expect(shown).not.toMatch(/tick \d+\n\n/);
  expect(await card.locator('pre.output *').count()).toBe(0);
  expect(await page.evaluate('typeof window.pwned')).toBe('undefined');

  // What finished and what asks: a report link, Retry for the rejected one, the question as text.
  await page.locator('#recent a[data-report="quick-one"]').waitFor();
  await page.locator('#recent button[data-action="retry"][data-task="broken-one"]').waitFor();
  await waitForText(page, '#blocked', 'Postgres or SQLite for the <i>cache</i>?');
  await page.locator('a[data-report="quick-one"]').click();
  await waitForText(page, 'pre.report', '"id": "quick-one"');
  // The list is drawn again at every poll: the open report stays open.
  await waitForRedraw(page);
  expect(await page.locator('#recent article', { hasText: 'quick-one' }).locator('pre.report').count()).toBe(1);
  const desktopShot = await screenshot(page, 'page-desktop');

  // A phone, in dark mode: the same page, no sideways scrolling.
  const phone = await watchedPage(browser, { width: 390, height: 844 }, { mobile: true, dark: true });
  phone.page.setDefaultTimeout(0);
  await phone.page.goto(`${base}/?token=${token}`);
  await waitForTick(phone.page, 'live-one', 1);
  const [scrollWidth, clientWidth] = await phone.page.evaluate<[number, number]>(
    '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
  );
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
  const phoneShot = await screenshot(phone.page, 'page-phone');

  // Stop: the flag is written, the agent stops, the checkpoint says so, and the page offers Resume.
  const stop = card.locator('button[data-task="live-one"]');
  expect(await stop.textContent()).toBe('Stop');
  await stop.click();
  const flag = join(vault.layout.approved, 'live-one.stop');
  await waitFor(() => existsSync(flag), 'the stop flag', UNTIL_VITEST_TIMEOUT);
  const taskFile = join(vault.layout.approved, 'live-one.md');
  await waitFor(
    () => /^\s+status: stopped$/m.test(readFileSync(taskFile, 'utf8')),
    'the checkpoint to say stopped',
    UNTIL_VITEST_TIMEOUT,
  );
  await waitForText(page, '#toast', 'stop flag written');
  await page.locator('#stopped button[data-action="resume"][data-task="live-one"]').waitFor();
  await page.locator('article[data-task-id="live-one"]').waitFor({ state: 'detached' });
  const stoppedShot = await screenshot(page, 'page-stopped');

  // Resume takes the flag away; Retry sends the rejected task back to Approved/.
  await page.locator('#stopped button[data-action="resume"][data-task="live-one"]').click();
  await waitFor(() => !existsSync(flag), 'the stop flag to be removed', UNTIL_VITEST_TIMEOUT);
  await waitForText(page, '#toast', 'stop flag removed');
  await page.locator('#recent button[data-action="retry"][data-task="broken-one"]').click();
  await waitForText(page, '#toast', 'Rejected/broken-one.md → Approved/broken-one.md');

  // Every request went to the daemon's own origin, and the page's script raised no error.
  const origin = new URL(base).origin;
  for (const url of [...desktop.requests, ...phone.requests]) expect(new URL(url).origin).toBe(origin);
  expect(desktop.errors).toEqual([]);
  expect(phone.errors).toEqual([]);

  // A reload reaches the server without the token (the page took it out of the address): the 401
  // answer, which holds no data, reopens the page with the token this tab kept.
  await page.reload();
  await waitForTick(page, 'live-one', 1);
  expect(page.url()).toBe(`${base}/`);
  expect(await page.evaluate('sessionStorage.getItem("wiggum-token")')).toBe(token);

  // A token rotated while the page is open: the page says what to do.
  writeFileSync(join(vault.root, '.wiggum', 'http-token'), 'a-new-token\n', { mode: 0o600 });
  await waitForText(page, '#problem', 'token missing or wrong: open the page as /?token=');
  const tokenShot = await screenshot(page, 'page-token-wrong');
  console.log(`screenshots: ${[desktopShot, phoneShot, stoppedShot, tokenShot].join(', ')}`);
});

test('the document is self-contained and puts no data in as HTML', () => {
  const html = pageHtml();
  // Nothing from another host: no absolute or protocol-relative address, no CSS import or url().
  expect(html).not.toMatch(/\b(?:src|href|action)\s*=\s*["']?(?:[a-z]+:)?\/\//i);
  expect(html).not.toMatch(/@import|url\(/i);
  expect(html).not.toMatch(/https?:\/\//i);
  // One inline script and one inline style, both named by hash in the page's own policy.
  expect(html.match(/<script>/g)).toHaveLength(1);
  expect(html.match(/<style>/g)).toHaveLength(1);
  expect(html).toMatch(
    /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+'/,
  );
  // Text only: no HTML sinks in the script.
  for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(', 'new Function'])
    expect(html).not.toContain(sink);
});
