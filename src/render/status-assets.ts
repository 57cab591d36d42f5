/**
 * The status page's stylesheet and script, served by the daemon itself (`/static/…`, no build
 * step, nothing from another host; the page's Content-Security-Policy allows only these). The
 * script is optional: without it the page is complete and a reload shows new data. With it, each
 * event on `/api/events/stream` re-fetches the page's main part (server-rendered, escaped there).
 * The stream names each message by its event, so the script listens to every name of the vocabulary.
 */
import { EVENT_NAMES } from '../events/vocabulary.js';

export const STATUS_CSS = `:root { color-scheme: light; --fg: #1b1b1b; --muted: #4a4a4a; --line: #c9c9c9; --bg: #ffffff; --panel: #f6f7f9; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
a { color: #0b4fa8; }
a:focus-visible, summary:focus-visible, main:focus-visible { outline: 3px solid #0b4fa8; outline-offset: 2px; }
.skip { position: absolute; left: -9999px; top: 0; background: #fff; padding: .5em 1em; }
.skip:focus { left: 1em; top: 1em; z-index: 1; }
header, main, footer { max-width: 72rem; margin: 0 auto; padding: 1rem 1.25rem; }
header h1 { margin: 0 0 .25rem; font-size: 1.5rem; }
header p { margin: .25rem 0; color: var(--muted); }
footer { color: var(--muted); border-top: 1px solid var(--line); }
.target { border: 1px solid var(--line); border-left: .5rem solid #6b6b6b; border-radius: .25rem; background: var(--panel);
  padding: .75rem 1rem; margin: 0 0 1.25rem; }
.target h2 { margin: 0 0 .25rem; font-size: 1.25rem; }
.badge { display: inline-block; font-size: .85rem; font-weight: 600; padding: .1rem .5rem; border-radius: 1rem;
  border: 1px solid currentColor; vertical-align: middle; }
.state-in-sync { border-left-color: #1e7a3c; } .state-in-sync .badge { color: #14532d; background: #e3f4e8; }
.state-drifted { border-left-color: #b26a00; } .state-drifted .badge { color: #6b3f00; background: #fff1db; }
.state-failing { border-left-color: #b3261e; } .state-failing .badge { color: #7f1d1d; background: #fde7e7; }
.state-applying, .state-planning, .state-queued, .state-starting { border-left-color: #1d4ed8; }
  .state-applying .badge, .state-planning .badge, .state-queued .badge, .state-starting .badge { color: #1e3a8a; background: #e6eefe; }
.state-standby, .state-stopping { border-left-color: #6b6b6b; } .state-standby .badge, .state-stopping .badge { color: #2f2f2f;
  background: #ececec; }
.reason { margin: .25rem 0 .75rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 .75rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; margin: .25rem 0 1rem; background: var(--bg); }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); padding: .3rem .5rem; overflow-wrap: break-word; }
td.event, td.when { white-space: nowrap; }
.overview { font-weight: 600; margin: 0 0 1rem; border-left: .5rem solid #1e7a3c; padding: .25rem .75rem; }
.overview.problem { border-left-color: #b3261e; color: #7f1d1d; background: #fde7e7; }
tr.late td, tr.late th { background: #fff1db; }
th { background: #eceef1; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f1f1f1; padding: .5rem; }
.muted, .ago { color: var(--muted); }
.callout { border: 1px solid var(--line); border-left: .35rem solid; padding: .25rem .75rem; margin: .5rem 0; background: var(--bg); }
.callout.error { border-left-color: #b3261e; } .callout.warning { border-left-color: #b26a00; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
#live { font-size: .9rem; }
.previews { display: flex; flex-wrap: wrap; gap: .75rem; }
.previews figure { margin: 0; max-width: 100%; }
.previews img { display: block; max-width: 100%; height: auto; border: 1px solid var(--line); background: #fff; }
.previews.thumbnail img { max-height: 10rem; width: auto; }
.previews figcaption { font-size: .9rem; color: var(--muted); overflow-wrap: anywhere; }
.problem { color: #7f1d1d; font-weight: 600; }
form.login { display: grid; grid-template-columns: max-content minmax(12rem, 24rem) max-content; gap: .5rem; align-items: center;
  margin: 1rem 0; }
form.login input, form.login button { font: inherit; padding: .3rem .5rem; }
`;

export const STATUS_JS = `'use strict';
(function () {
  var main = document.getElementById('main');
  var live = document.getElementById('live');
  if (!main || !live || typeof EventSource !== 'function' || typeof fetch !== 'function') return;
  var target = main.getAttribute('data-target');
  var pending = null;
  function refresh() {
    pending = null;
    fetch(location.pathname + '?partial=1', { headers: { accept: 'text/html' }, credentials: 'same-origin' })
      .then(function (res) { if (!res.ok) throw new Error('HTTP ' + res.status); return res.text(); })
      .then(function (html) {
        var focused = document.activeElement && document.activeElement.id;
        main.innerHTML = html;
        if (focused) { var again = document.getElementById(focused); if (again) again.focus(); }
        live.textContent = 'Live: updated ' + new Date().toISOString().slice(0, 19).replace('T', ' ') + ' UTC';
      })
      .catch(function () { live.textContent = 'Live updates paused (the daemon did not answer); reload to try again'; });
  }
  var stream = new EventSource('/api/events/stream' + (target ? '?target=' + encodeURIComponent(target) : ''));
  stream.onopen = function () { live.textContent = 'Live: connected'; };
  ${JSON.stringify(EVENT_NAMES)}.forEach(function (name) {
    stream.addEventListener(name, function () { if (pending === null) pending = setTimeout(refresh, 250); });
  });
  stream.onerror = function () { live.textContent = 'Live updates reconnecting…'; };
})();
`;
