/**
 * The page a browser gets instead of the status page when the daemon has a status token and the
 * browser no session yet (issue 50): one form that posts the token to `/login` (in the body, never
 * in the URL), then goes on to the page that was asked for. No script; the daemon's stylesheet.
 */
import { text } from './html.js';

export interface LoginPageOptions {
  /** The page to show once signed in (a path of this daemon). */
  next: string;
  /** The last attempt was wrong. */
  failed: boolean;
}

export function renderLoginPage(opts: LoginPageOptions): string {
  const problem = opts.failed ? '<p class="problem" role="alert">That is not the status token of this daemon.</p>\n' : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>obsync status: sign in</title>
<link rel="stylesheet" href="/static/status.css">
</head>
<body>
<header><h1>obsync status</h1><p>This daemon's status page needs its status token (OBSYNC_STATUS_TOKEN).</p></header>
<main id="main">
${problem}<form class="login" method="post" action="/login">
<input type="hidden" name="next" value="${text(opts.next)}">
<label for="token">Status token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required spellcheck="false">
<button type="submit">Sign in</button>
</form>
<p class="muted">The browser keeps a session cookie for 12 hours (HttpOnly: no script reads it); the token itself is not stored.
Changing the token ends every session.</p>
</main>
</body>
</html>
`;
}
