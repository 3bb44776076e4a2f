/**
 * The `/admin` shell. Kept as strings in the program (no files beside it to lose at install);
 * it is public and holds no data: everything it shows comes from `/api/v1` with a bearer token.
 */
export const ADMIN_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Argus node</title>
<link rel="stylesheet" href="/admin/app.css">
</head>
<body>
<header><h1>Argus node</h1><span id="who"></span><button id="logout" hidden>Log out</button></header>
<main>
<section id="login" hidden>
  <h2>Administrator login</h2>
  <form id="login-form">
    <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
    <button type="submit">Log in</button>
  </form>
  <p class="msg" id="login-msg" role="alert"></p>
</section>

<section id="wizard" hidden>
  <h2>First run: close the gate</h2>
  <p class="warn">This node has no administrator password and no API token: the panel and the API are open to anyone who reaches this address.</p>
  <form id="wizard-form">
    <label>Administrator password <input type="password" name="admin_password" minlength="8" autocomplete="new-password" required></label>
    <label>Repeat password <input type="password" name="repeat" autocomplete="new-password" required></label>
    <label>Read token (metrics scraper, optional) <input name="api_read_token" minlength="16" autocomplete="off"> <button type="button" data-generate="api_read_token">Generate</button></label>
    <label>Write token (control plane, optional) <input name="api_write_token" minlength="16" autocomplete="off"> <button type="button" data-generate="api_write_token">Generate</button></label>
    <label><input type="checkbox" name="keep_sessions" checked> Keep logins across restarts (generates a session secret)</label>
    <button type="submit">Save and close the gate</button>
  </form>
  <p class="msg" id="wizard-msg" role="alert"></p>
</section>

<section id="app" hidden>
  <nav><button data-tab="overview" class="active">Overview</button><button data-tab="security">Security</button><button data-tab="history">History</button></nav>
  <div id="tab-overview" class="tab">
    <h2>Node</h2><dl id="system"></dl>
    <h2>Streams</h2><table><thead><tr><th>Name</th><th>Input</th><th>State</th></tr></thead><tbody id="streams"></tbody></table>
  </div>
  <div id="tab-security" class="tab" hidden>
    <h2>Security</h2>
    <p class="warn">Saving rewrites the whole <code>auth { }</code> block. A field left empty is removed from the configuration:
    a token set by hand in the file and not entered here is deleted, and the gate may close or open.
    Edit tokens either only in the file or only here.</p>
    <form id="security-form">
      <label>Administrator password <input type="password" name="admin_password" autocomplete="new-password"></label>
      <label>Session secret <input type="password" name="session_secret" autocomplete="off"> <button type="button" data-generate="session_secret">Generate</button></label>
      <label><input type="checkbox" name="admin_ip_bind"> Bind sessions to the login address (admin_ip_bind)</label>
      <label>Read token <input name="api_read_token" minlength="16" autocomplete="off"> <button type="button" data-generate="api_read_token">Generate</button></label>
      <label>Write token <input name="api_write_token" minlength="16" autocomplete="off"> <button type="button" data-generate="api_write_token">Generate</button></label>
      <button type="submit">Save auth block</button>
    </form>
    <p class="msg" id="security-msg" role="alert"></p>
  </div>
  <div id="tab-history" class="tab" hidden>
    <h2>Configuration history</h2>
    <table><thead><tr><th>Epoch</th><th>When</th><th>Actor</th><th>Via</th><th>Hash</th><th></th></tr></thead><tbody id="history"></tbody></table>
    <p class="msg" id="history-msg" role="alert"></p>
  </div>
</section>
</main>
<script src="/admin/app.js"></script>
</body>
</html>
`;

export const ADMIN_CSS = `body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f4f5f7; }
header { display: flex; gap: 1em; align-items: center; padding: .5em 1em; background: #1d2330; color: #fff; }
header h1 { font-size: 1.1em; margin: 0; flex: 1; }
main { max-width: 60em; margin: 1em auto; padding: 0 1em; }
section, .tab { background: #fff; padding: 1em; border-radius: 4px; }
label { display: block; margin: .5em 0; }
input:not([type=checkbox]) { width: 22em; padding: .3em; }
nav button { margin-right: .3em; } nav button.active { font-weight: bold; }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .25em .5em; border-bottom: 1px solid #ddd; }
.warn { background: #fff4d6; border-left: 4px solid #d99a00; padding: .5em; }
.msg { min-height: 1.4em; color: #a00; } .msg.ok { color: #070; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; }
`;

export const ADMIN_JS = `'use strict';
(function () {
  var KEY = 'argus-node-session';
  var $ = function (id) { return document.getElementById(id); };
  var token = sessionStorage.getItem(KEY);

  function api(method, path, body) {
    var headers = { 'accept': 'application/json' };
    if (token) headers.authorization = 'Bearer ' + token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (r) { return r.text().then(function (t) { var j = null; try { j = JSON.parse(t); } catch (e) {} return { status: r.status, body: j }; }); });
  }
  function show(id) { ['login', 'wizard', 'app'].forEach(function (s) { $(s).hidden = s !== id; }); $('logout').hidden = id !== 'app' || !token; }
  function msg(id, text, ok) { $(id).textContent = text; $(id).className = ok ? 'msg ok' : 'msg'; }
  function randomToken() { var b = new Uint8Array(24); crypto.getRandomValues(b); return Array.from(b, function (x) { return x.toString(16).padStart(2, '0'); }).join(''); }
  function describe(r) {
    if (!r.body) return 'HTTP ' + r.status;
    if (r.body.problems) return r.body.problems.join('; ');
    return r.body.message || r.body.reason || r.body.error;
  }

  function start() {
    api('GET', '/api/v1/system').then(function (r) {
      if (r.status === 200 && !token) { show('wizard'); return; }
      if (r.status === 200) { show('app'); loadOverview(r.body); return; }
      token = null; sessionStorage.removeItem(KEY); show('login');
    });
  }

  function loadOverview(sys) {
    var dl = $('system'); dl.textContent = '';
    [['Version', sys.version], ['CPUs', sys.cpus], ['Memory available', sys.mem_available_mb + ' / ' + sys.mem_total_mb + ' MB'],
     ['Streams', sys.stream_counts.total], ['Licence', sys.license ? sys.license.state : 'none']].forEach(function (p) {
      var dt = document.createElement('dt'); dt.textContent = p[0]; var dd = document.createElement('dd'); dd.textContent = String(p[1]); dl.append(dt, dd);
    });
    api('GET', '/api/v1/streams').then(function (r) {
      var tb = $('streams'); tb.textContent = '';
      (r.body && r.body.rows || []).forEach(function (s) { tb.append(row([s.name, s.input || '', s.state])); });
    });
  }
  function row(cells) { var tr = document.createElement('tr'); cells.forEach(function (c) { var td = document.createElement('td'); if (c instanceof Node) td.append(c); else td.textContent = String(c); tr.append(td); }); return tr; }

  function loadHistory() {
    api('GET', '/api/v1/config/history').then(function (r) {
      var tb = $('history'); tb.textContent = '';
      if (r.status !== 200) { msg('history-msg', describe(r)); return; }
      r.body.slice().reverse().forEach(function (e) {
        var b = document.createElement('button'); b.textContent = 'Roll back to this';
        b.onclick = function () {
          api('POST', '/api/v1/config/rollback', { epoch: e.epoch }).then(function (x) {
            msg('history-msg', x.status === 200 ? (x.body.changed ? 'Applied as epoch ' + x.body.epoch : 'Already applied') : describe(x), x.status === 200);
            loadHistory();
          });
        };
        tb.append(row([e.epoch, new Date(e.ts_ms).toLocaleString(), e.actor, e.via, e.hash.slice(0, 12), b]));
      });
    });
  }

  function authBlock(form) {
    var a = {};
    ['admin_password', 'session_secret', 'api_read_token', 'api_write_token'].forEach(function (k) {
      if (form.elements[k] && form.elements[k].value) a[k] = form.elements[k].value;
    });
    if (form.elements.admin_ip_bind) a.admin_ip_bind = form.elements.admin_ip_bind.checked;
    return a;
  }

  document.querySelectorAll('[data-generate]').forEach(function (b) {
    b.onclick = function () { b.form.elements[b.dataset.generate].value = randomToken(); };
  });
  document.querySelectorAll('nav button').forEach(function (b) {
    b.onclick = function () {
      document.querySelectorAll('nav button').forEach(function (x) { x.classList.toggle('active', x === b); });
      document.querySelectorAll('.tab').forEach(function (t) { t.hidden = t.id !== 'tab-' + b.dataset.tab; });
      if (b.dataset.tab === 'history') loadHistory();
    };
  });

  $('login-form').onsubmit = function (ev) {
    ev.preventDefault();
    msg('login-msg', 'Checking...', true);
    api('POST', '/api/v1/auth/login', { password: ev.target.elements.password.value }).then(function (r) {
      if (r.status === 200) { token = r.body.token; sessionStorage.setItem(KEY, token); ev.target.reset(); msg('login-msg', ''); start(); return; }
      if (r.status === 404) msg('login-msg', 'No administrator password is configured: the API is gated by static tokens only and the panel has no login.');
      else if (r.status === 429) msg('login-msg', 'Too many attempts from this address; retry in ' + (r.body && r.body.retry_after) + ' s.');
      else if (r.status === 401) msg('login-msg', 'Wrong password.');
      else msg('login-msg', describe(r));
    });
  };

  $('wizard-form').onsubmit = function (ev) {
    ev.preventDefault();
    var f = ev.target;
    if (f.elements.admin_password.value !== f.elements.repeat.value) { msg('wizard-msg', 'The passwords differ.'); return; }
    var a = authBlock(f);
    if (f.elements.keep_sessions.checked) a.session_secret = randomToken();
    api('PATCH', '/api/v1/config/globals', { auth: a }).then(function (r) {
      if (r.status !== 200) { msg('wizard-msg', describe(r)); return; }
      msg('login-msg', 'The gate is closed. Log in with the new password.', true);
      show('login');
    });
  };

  $('security-form').onsubmit = function (ev) {
    ev.preventDefault();
    if (!confirm('Rewrite the whole auth block? Fields left empty are removed.')) return;
    api('PATCH', '/api/v1/config/globals', { auth: authBlock(ev.target) }).then(function (r) {
      msg('security-msg', r.status === 200 ? 'Saved as epoch ' + r.body.epoch + '.' : describe(r), r.status === 200);
      if (r.status === 200) { ev.target.reset(); start(); }
    });
  };

  $('logout').onclick = function () { token = null; sessionStorage.removeItem(KEY); start(); };
  start();
})();
`;
