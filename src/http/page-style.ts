/**
 * The web page's CSS (src/http/page.ts inlines it). Phone first: one column that wraps every long
 * word (task ids, paths, agent output), so nothing scrolls sideways; system fonts only.
 */
export const PAGE_STYLE = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --card: #ffffff; --fg: #1b1f24; --muted: #5b636e; --line: #d9dde3;
  --accent: #2459c4; --run: #17803d; --wait: #9a6a00; --bad: #c62828; --out-bg: #11151a; --out-fg: #d7dde5;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1216; --card: #181c22; --fg: #e4e8ee; --muted: #9aa4b1; --line: #2a313a;
    --accent: #7aa7ff; --run: #4cc27a; --wait: #e0b14a; --bad: #ff6b6b; --out-bg: #0a0c0f; --out-fg: #cfd6df;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  overflow-wrap: anywhere;
}
main { max-width: 64rem; margin: 0 auto; padding: 0.75rem; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 0.75rem; }
h1 { font-size: 1.35rem; margin: 0; }
h2 { font-size: 1.05rem; margin: 1.25rem 0 0.5rem; color: var(--muted); text-transform: uppercase; letter-spacing: 0.04em; }
h3 { font-size: 1rem; margin: 0; font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; min-width: 0; }
.muted { color: var(--muted); }
.small { font-size: 0.875rem; }
[hidden] { display: none !important; }
.banner { margin: 0.75rem 0 0; padding: 0.6rem 0.8rem; border-radius: 0.5rem; border: 1px solid var(--bad); color: var(--bad); background: var(--card); }
.banner.held { border-color: var(--wait); color: var(--wait); }
.counts { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0.75rem 0 0; padding: 0; list-style: none; }
.counts li { background: var(--card); border: 1px solid var(--line); border-radius: 0.5rem; padding: 0.3rem 0.6rem; }
.counts b { font-variant-numeric: tabular-nums; }
.list { display: grid; gap: 0.6rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 0.6rem; padding: 0.7rem 0.8rem; min-width: 0; }
.card.running { border-left: 4px solid var(--run); }
.card.waiting { border-left: 4px solid var(--wait); }
.card.bad { border-left: 4px solid var(--bad); }
.row { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.5rem; }
.facts { display: flex; flex-wrap: wrap; gap: 0.2rem 1rem; margin: 0.4rem 0 0; padding: 0; list-style: none; color: var(--muted); font-size: 0.9rem; }
.facts b { color: var(--fg); font-weight: 600; font-variant-numeric: tabular-nums; }
.why { margin: 0.35rem 0 0; }
.title { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; min-width: 0; }
.badge { display: inline-block; font-size: 0.8rem; padding: 0.05rem 0.45rem; border-radius: 1rem; border: 1px solid currentColor; }
.badge.done { color: var(--run); }
.badge.rejected { color: var(--bad); }
button {
  font: inherit; min-height: 2.5rem; min-width: 5rem; padding: 0.3rem 0.9rem; border-radius: 0.5rem;
  border: 1px solid var(--accent); background: transparent; color: var(--accent); cursor: pointer;
}
button.stop { border-color: var(--bad); color: var(--bad); }
button:disabled { opacity: 0.5; cursor: default; }
a { color: var(--accent); }
pre {
  margin: 0.5rem 0 0; padding: 0.5rem 0.6rem; border-radius: 0.4rem; max-width: 100%;
  white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word;
  font: 0.8rem/1.35 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
}
pre.output { background: var(--out-bg); color: var(--out-fg); border: 1px solid var(--line); height: 16rem; max-height: 45vh; overflow-y: auto; overflow-x: hidden; }
pre.report { background: var(--bg); border: 1px solid var(--line); max-height: 60vh; overflow: auto; }
.stream { margin: 0.25rem 0 0; font-size: 0.8rem; }
#toast { position: sticky; bottom: 0.5rem; margin: 1rem 0 0; padding: 0.6rem 0.8rem; border-radius: 0.5rem; background: var(--fg); color: var(--bg); }
footer { margin: 1.5rem 0 0.5rem; }
`;
