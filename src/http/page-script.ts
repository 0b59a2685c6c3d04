/**
 * The web page's script (src/http/page.ts inlines it, followed by src/http/page-live.ts), plain
 * browser JavaScript with no build step.
 * Every string from the API reaches the page through `textContent` or `setAttribute`: never as HTML.
 * Kept free of template literals and of the closing script tag, so it can sit in this raw string.
 */
export const PAGE_SCRIPT = String.raw`
'use strict';
const TOKEN_KEY = 'wiggum-token';
const POLL_MS = 2000;
const KEEP_LINES = 200;
const TOKEN_HELP = 'token missing or wrong: open the page as /?token=… (the token is in .wiggum/http-token)';
const $ = (id) => document.getElementById(id);
let token = takeToken();
let skewMs = 0;
let stopped = false;
let nowSeen = Date.now();
const running = new Map();
/** The reports opened under the finished tasks, by id: kept open across the list's redraws. */
const reports = new Map();

/** The token from ?token= or #token= (then kept for this tab and taken out of the address bar), else the kept one. */
function takeToken() {
  const query = new URLSearchParams(location.search);
  const hash = new URLSearchParams(location.hash.replace(/^#/, ''));
  const given = query.get('token') || hash.get('token');
  let kept = '';
  try {
    if (given) sessionStorage.setItem(TOKEN_KEY, given);
    kept = sessionStorage.getItem(TOKEN_KEY) || '';
  } catch (error) {
    kept = '';
  }
  if (given) {
    query.delete('token');
    hash.delete('token');
    const search = query.toString();
    const fragment = hash.toString();
    history.replaceState(null, '', location.pathname + (search ? '?' + search : '') + (fragment ? '#' + fragment : ''));
  }
  return given || kept;
}

function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function fact(label, value) {
  return el('li', '', label + ' ', el('b', '', String(value)));
}

function api(path, init) {
  const headers = { Authorization: 'Bearer ' + token };
  return fetch(path, Object.assign({ cache: 'no-store', headers: headers }, init || {}));
}

function taskPath(id) {
  return '/api/v1/tasks/' + encodeURIComponent(id);
}

function authFailed() {
  stopped = true;
  showProblem(TOKEN_HELP);
  for (const card of running.values()) card.abort.abort();
}

function showProblem(text) {
  const banner = $('problem');
  banner.textContent = text || '';
  banner.hidden = !text;
}

async function errorText(response) {
  try {
    const body = await response.json();
    if (body && body.error && body.error.message) return body.error.message;
  } catch (error) {
    /* not JSON */
  }
  return 'HTTP ' + response.status;
}

function duration(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return seconds + 's';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return minutes + 'm ' + (seconds % 60) + 's';
  return Math.floor(minutes / 60) + 'h ' + (minutes % 60) + 'm';
}

function ago(atMs) {
  return atMs ? duration(nowSeen - atMs) + ' ago' : '';
}

function money(spent) {
  if (!spent) return null;
  const tokens = (spent.inputTokens || 0) + (spent.outputTokens || 0);
  const parts = [tokens ? tokens.toLocaleString('en-US') : 'none reported'];
  if (typeof spent.costUsd === 'number') parts.push('$' + spent.costUsd.toFixed(4));
  return parts.join(' · ');
}

async function poll() {
  if (stopped) return;
  try {
    const response = await api('/api/v1/state');
    if (response.status === 401) return authFailed();
    if (!response.ok) throw new Error(await errorText(response));
    const date = Date.parse(response.headers.get('date') || '');
    // The daemon's clock, where it differs from this device's by more than the header's rounding.
    skewMs = Number.isFinite(date) && Math.abs(date - Date.now()) > 2000 ? date - Date.now() : 0;
    nowSeen = Date.now() + skewMs;
    render(await response.json());
    showProblem('');
  } catch (error) {
    showProblem('cannot read the daemon (' + (error && error.message ? error.message : error) + '): trying again');
  }
  if (!stopped) setTimeout(poll, POLL_MS);
}

/** A task of the state's picture with its run's facts beside its own (the cards read both alike). */
function flat(task) {
  return Object.assign({}, task.run || {}, task, { iteration: task.iterations });
}

/** The states whose tasks wait on a person (src/task/states.ts): listed first, in their own section. */
const PEOPLE = ['blocked', 'in-review', 'needs-harness', 'being-written', 'waiting-for-you', 'invalid'];
const HALTED = ['stopped', 'interrupted'];
const ENDED = ['done', 'rejected'];

function render(state) {
  const tasks = (Array.isArray(state.tasks) ? state.tasks : []).map(flat);
  const live = tasks.filter((task) => task.state === 'running');
  const people = tasks.filter((task) => PEOPLE.includes(task.state));
  const halted = tasks.filter((task) => HALTED.includes(task.state));
  const recent = tasks.filter((task) => ENDED.includes(task.state) && task.endedAtMs).slice(0, 20);
  const waiting = tasks.filter(
    (task) => task.state !== 'running' && !PEOPLE.includes(task.state) && !HALTED.includes(task.state) && !ENDED.includes(task.state),
  );
  const counts = state.counts || {};
  const states = state.states || {};
  $('vault').textContent = state.vault || '';
  const daemon = state.daemon;
  $('daemon').textContent = daemon
    ? 'daemon ' + daemon.lifecycle + ' · pid ' + daemon.pid + ' · ' + daemon.concurrency + ' at once · up ' + duration(nowSeen - daemon.startedAtMs)
    : 'no daemon runs';
  $('held').hidden = !state.held;
  $('counts').replaceChildren(
    fact('running', states.running ?? 0),
    fact('approved', counts.approved ?? 0),
    fact('blocked', counts.blocked ?? 0),
    fact('in review', counts.review ?? 0),
    fact('done', counts.done ?? 0),
    fact('rejected', counts.rejected ?? 0),
  );
  document.title = live.length ? 'wiggum · ' + live.length + ' running' : 'wiggum';
  renderRunning(live);
  fill('waiting', waiting.map(waitingCard));
  fill('blocked', people.map(personCard));
  fill('stopped', halted.map(stoppedCard));
  fill('recent', recent.map(recentCard));
  $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
}

function fill(name, cards) {
  $(name + '-list').replaceChildren(...cards);
  $(name).hidden = cards.length === 0;
}

function actionButton(action, id, text) {
  const button = el('button', action, text);
  button.type = 'button';
  button.dataset.action = action;
  button.dataset.task = id;
  button.setAttribute('aria-label', text + ' ' + id);
  return button;
}

function word(state) {
  return String(state).replace(/-/g, ' ');
}

function waitingCard(task) {
  let why = word(task.state);
  if (task.state === 'failing' && task.failure) why = 'could not start: ' + task.failure.message + ' (tries again ' + inTime(task.failure.retryAtMs) + ')';
  else if (task.why) why += ': ' + task.why;
  if (task.outage) why += ' (' + task.outage.harness + ' silent since ' + ago(task.outage.sinceMs) + ')';
  if (task.untilMs) why += ', until ' + new Date(task.untilMs - skewMs).toLocaleTimeString() + ' (' + inTime(task.untilMs) + ')';
  const facts = el('ul', 'facts', fact('state', word(task.state)));
  if (task.maxIterations) facts.append(fact('iteration', (task.iteration ?? 0) + '/' + task.maxIterations));
  return el('article', 'card waiting', el('h3', '', task.id), el('p', 'why', why), facts);
}

function inTime(atMs) {
  return atMs > nowSeen ? 'in ' + duration(atMs - nowSeen) : 'now';
}

function personCard(task) {
  const text =
    task.state === 'blocked'
      ? 'asks: ' + (task.question ? task.question : '(no question found in the file)')
      : word(task.state) + (task.why ? ': ' + task.why : '');
  return el('article', 'card waiting', el('h3', '', task.id), el('p', 'why', text), el('ul', 'facts', fact('state', word(task.state))));
}

function stoppedCard(task) {
  const facts = el('ul', 'facts', fact(word(task.state), ago(task.sinceMs) || '—'));
  if (task.maxIterations) facts.append(fact('iteration', (task.iteration ?? 0) + '/' + task.maxIterations));
  return el('article', 'card', el('div', 'row', el('h3', '', task.id), actionButton('resume', task.id, 'Resume')), facts);
}

function recentCard(entry) {
  const name = entry.id || entry.file.split('/').pop();
  const title = el('h3', '', entry.id ? reportLink(entry.id) : name);
  const head = el('div', 'row', el('div', 'title', el('span', 'badge ' + entry.state, entry.state), title));
  if (entry.state === 'rejected' && entry.id) head.append(actionButton('retry', entry.id, 'Retry'));
  const facts = el('ul', 'facts', fact('iterations', entry.iterations ?? '—'), fact('ended', ago(entry.endedAtMs)));
  const card = el('article', 'card' + (entry.state === 'rejected' ? ' bad' : ''), head, facts);
  if (entry.reason) card.append(el('p', 'why small', entry.reason));
  if (entry.id && reports.has(entry.id)) card.append(reports.get(entry.id));
  return card;
}

/** A link to the task's report (JSON): opened here, since a plain link cannot carry the bearer header. */
function reportLink(id) {
  const link = el('a', '', id);
  link.href = taskPath(id);
  link.dataset.report = id;
  return link;
}

async function showReport(link) {
  const id = link.dataset.report;
  if (reports.has(id)) {
    reports.get(id).remove();
    return reports.delete(id);
  }
  const report = el('pre', 'report', 'reading…');
  reports.set(id, report);
  link.closest('article').append(report);
  try {
    const response = await api(taskPath(id));
    if (response.status === 401) return authFailed();
    report.textContent = response.ok ? JSON.stringify(await response.json(), null, 2) : await errorText(response);
  } catch (error) {
    report.textContent = 'cannot read the report: ' + (error && error.message ? error.message : error);
  }
}

async function act(button) {
  const { action, task } = button.dataset;
  button.disabled = true;
  try {
    const response = await api(taskPath(task) + '/' + action, { method: 'POST' });
    if (response.status === 401) return authFailed();
    let body = null;
    try {
      body = await response.json();
    } catch (error) {
      body = null;
    }
    toast(response.ok ? (body && body.message) || action + ': done' : (body && body.error && body.error.message) || 'HTTP ' + response.status);
  } catch (error) {
    toast(action + ' failed: ' + (error && error.message ? error.message : error));
  } finally {
    button.disabled = false;
  }
}

function toast(text) {
  const box = $('toast');
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.hidden = true), 6000);
}

document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target : null;
  const button = target && target.closest('button[data-action]');
  if (button) return act(button);
  const link = target && target.closest('a[data-report]');
  if (link && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
    event.preventDefault();
    showReport(link);
  }
});

if (token) poll();
else showProblem(TOKEN_HELP);
`;
