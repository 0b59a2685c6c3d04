import { inlineHash } from './page.js';

/**
 * Where the page keeps its token for the tab (sessionStorage): the page script and this one agree
 * on it. A reload of `/` reaches the server without the token (the page took it out of the address
 * bar): this page, answered with 401, puts it back in the URL once and the page takes it out again.
 */
const SCRIPT = `(function () {
  var KEY = 'wiggum-token';
  var query = new URLSearchParams(location.search);
  var hash = new URLSearchParams(location.hash.slice(1));
  var kept = null;
  try { kept = sessionStorage.getItem(KEY); } catch (e) {}
  var given = hash.get('token') || (query.get('token') ? null : kept);
  if (given) { location.replace('/?token=' + encodeURIComponent(given)); return; }
  // The server refused the token in the URL: a kept one is stale too.
  try { sessionStorage.removeItem(KEY); } catch (e) {}
  document.getElementById('why').hidden = false;
})();`;

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:36rem;padding:0 1rem}code{overflow-wrap:anywhere}';

/**
 * `GET /` without the right token: a page with no data at all (401), saying how to open the page;
 * a token kept in this tab or given after `#` reopens it.
 */
export function signInHtml(): string {
  const policy = `default-src 'none'; script-src ${inlineHash(SCRIPT)}; style-src ${inlineHash(STYLE)}; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="referrer" content="no-referrer">
<title>wiggum: token needed</title>
<style>${STYLE}</style>
</head>
<body>
<h1>wiggum</h1>
<p id="why" hidden>Token missing or wrong: open the page as <code>/?token=…</code>. The token is in
<code>.wiggum/http-token</code> in the vault; <code>wiggum http-token</code> prints it.</p>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
