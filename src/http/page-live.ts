/**
 * The web page's running tasks (src/http/page.ts inlines this after src/http/page-script.ts, in the
 * same script): a card per running task, its facts, and its agent's output read from the task's event
 * stream. Only function declarations, which the rest of the script calls. Output reaches the page as
 * text (`textContent`), never as HTML. Free of template literals, like the rest of the script.
 */
export const LIVE_SCRIPT = String.raw`
function renderRunning(live) {
  const ids = new Set(live.map((task) => task.id));
  for (const [id, card] of running)
    if (!ids.has(id)) {
      card.abort.abort();
      card.node.remove();
      running.delete(id);
    }
  for (const task of live) {
    let card = running.get(task.id);
    if (!card) {
      card = runningCard(task.id);
      running.set(task.id, card);
      $('running-list').append(card.node);
      follow(card);
    }
    card.task = task;
    updateFacts(card);
    refreshSpent(card);
  }
  $('running-empty').hidden = live.length > 0;
}

function runningCard(id) {
  const facts = el('ul', 'facts');
  const output = el('pre', 'output');
  output.setAttribute('aria-label', 'agent output of ' + id);
  output.setAttribute('tabindex', '0');
  const stream = el('p', 'stream muted', 'connecting to the agent output…');
  const head = el('div', 'row', el('h3', '', id), actionButton('stop', id, 'Stop'));
  const node = el('article', 'card running', head, facts, output, stream);
  node.dataset.taskId = id;
  output.addEventListener('scroll', () => {
    card.stick = output.scrollTop + output.clientHeight >= output.scrollHeight - 24;
  });
  const card = { id, node, facts, output, stream, lines: [''], stick: true, abort: new AbortController(), painting: false };
  return card;
}

function updateFacts(card) {
  const task = card.task;
  const max = task.maxIterations ? String(task.maxIterations) : '∞';
  const items = [fact('iteration', (task.current ?? task.iteration ?? 0) + '/' + max)];
  const story = task.step || (card.detail && card.detail.loop && card.detail.loop.checkpoint && card.detail.loop.checkpoint.current_step);
  items.push(fact('story', story || '—'));
  const started = task.taskStartedMs || task.sinceMs;
  if (started) items.push(fact('elapsed', duration(nowSeen - started)));
  const spent = money(task.spent || (card.detail && card.detail.spent));
  items.push(fact('tokens', spent || '…'));
  if (task.harness) items.push(fact('harness', task.harness));
  if (task.foreground) items.push(fact('run by pid', task.foreground.pid));
  if (task.worker) items.push(fact('worker', task.worker.id));
  card.facts.replaceChildren(...items);
}

/** Tokens and cost come with the task's detail (its history), read once per poll at most. */
async function refreshSpent(card) {
  if (card.reading) return;
  card.reading = true;
  try {
    const response = await api(taskPath(card.id));
    if (response.status === 401) return authFailed();
    if (response.ok) {
      card.detail = await response.json();
      if (card.task) updateFacts(card);
    }
  } catch (error) {
    /* the next poll tries again */
  } finally {
    card.reading = false;
  }
}

/** The agent's output as an event stream (fetch, for the bearer header), from its start, then live. */
async function follow(card) {
  let ended = null;
  let fresh = true;
  try {
    const response = await api(taskPath(card.id) + '/events', { signal: card.abort.signal, headers: { Authorization: 'Bearer ' + token, Accept: 'text/event-stream' } });
    if (response.status === 401) return authFailed();
    if (!response.ok || !response.body) throw new Error(await errorText(response));
    card.stream.textContent = 'live';
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let event = 'message';
    let data = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        if (line === '') {
          if (event === 'output' && data.length > 0) {
            // The stream starts again from the beginning after a reconnect.
            if (fresh) card.lines = [''];
            fresh = false;
            append(card, data.join('\n'));
          } else if (event === 'end') {
            try {
              ended = JSON.parse(data.join('\n')).status || 'ended';
            } catch (error) {
              ended = 'ended';
            }
          }
          event = 'message';
          data = [];
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon === -1 ? line : line.slice(0, colon);
          const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = text;
          else if (field === 'data') data.push(text);
        }
      }
    }
  } catch (error) {
    if (card.abort.signal.aborted) return;
    card.stream.textContent = 'output stream lost (' + (error && error.message ? error.message : error) + '): reconnecting';
  }
  if (card.abort.signal.aborted) return;
  if (ended !== null) {
    card.stream.textContent = 'agent output ended: ' + ended;
    return;
  }
  setTimeout(() => {
    if (!card.abort.signal.aborted && !stopped) follow(card);
  }, POLL_MS);
}

/** A piece of the agent's text (its data lines joined): it may end inside a line, which the next piece goes on. */
function append(card, text) {
  const pieces = text.split('\n');
  card.lines[card.lines.length - 1] += pieces[0];
  for (let i = 1; i < pieces.length; i += 1) card.lines.push(pieces[i]);
  if (card.lines.length > KEEP_LINES + 1) card.lines.splice(0, card.lines.length - KEEP_LINES - 1);
  if (card.painting) return;
  card.painting = true;
  requestAnimationFrame(() => {
    card.painting = false;
    card.output.textContent = card.lines.join('\n');
    if (card.stick) card.output.scrollTop = card.output.scrollHeight;
  });
}
`;
