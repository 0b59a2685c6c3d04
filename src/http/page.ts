import { createHash } from 'node:crypto';
import { LIVE_SCRIPT } from './page-live.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';

/** The page's one script: the polling and the sections, then the running tasks' cards and streams. */
const SCRIPT = PAGE_SCRIPT + LIVE_SCRIPT;

/** A CSP source for one inline block: the browser runs it only if its bytes hash to this. */
export function inlineHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The page's own policy: its one script and one style (by hash) and requests to its own origin,
 * nothing from any other host, no frames, no forms elsewhere. It holds whatever the server's
 * headers add.
 */
function contentSecurityPolicy(): string {
  return [
    "default-src 'none'",
    `script-src ${inlineHash(SCRIPT)}`,
    `style-src ${inlineHash(PAGE_STYLE)}`,
    "connect-src 'self'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

function buildPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy()}">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>wiggum</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main>
<header>
<h1>wiggum</h1>
<span id="vault" class="muted small"></span>
<span id="daemon" class="muted small"></span>
</header>
<p id="problem" class="banner" role="alert" hidden></p>
<p id="held" class="banner held" hidden>The vault's STOP file is there: nothing new starts, and running tasks hold before their next iteration.</p>
<ul id="counts" class="counts" aria-label="tasks by folder"></ul>
<section id="running" aria-labelledby="running-title">
<h2 id="running-title">Running</h2>
<p id="running-empty" class="muted">Nothing runs now.</p>
<div id="running-list" class="list"></div>
</section>
<section id="waiting" aria-labelledby="waiting-title" hidden>
<h2 id="waiting-title">Waiting</h2>
<div id="waiting-list" class="list"></div>
</section>
<section id="blocked" aria-labelledby="blocked-title" hidden>
<h2 id="blocked-title">Waiting on you</h2>
<p class="muted small">Answer in the task file in Blocked/, then move it back to Approved/.</p>
<div id="blocked-list" class="list"></div>
</section>
<section id="stopped" aria-labelledby="stopped-title" hidden>
<h2 id="stopped-title">Stopped</h2>
<div id="stopped-list" class="list"></div>
</section>
<section id="recent" aria-labelledby="recent-title" hidden>
<h2 id="recent-title">Recently finished</h2>
<div id="recent-list" class="list"></div>
</section>
<p id="toast" role="status" aria-live="polite" hidden></p>
<footer class="muted small"><span id="updated">connecting…</span></footer>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

let page: string | null = null;

/**
 * The daemon's web page (`GET /`): one self-contained HTML document, its CSS and script inline and
 * nothing loaded from another host. It reads everything from the API with the token it was opened
 * with (docs/web.md).
 */
export function pageHtml(): string {
  page ??= buildPage();
  return page;
}
