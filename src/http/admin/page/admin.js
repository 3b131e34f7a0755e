// The admin page's script: asks for the admin token, keeps it in this tab's memory only (never in storage), and
// sends it as Authorization: Bearer with each call of the /admin API, same origin. Text is set with textContent
// only, so nothing from the server is ever read as HTML.
let token = '';

const $ = (id) => document.getElementById(id);

async function call(method, path, body) {
  const res = await fetch(`/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) {
    const message = json?.error?.message ?? `HTTP ${res.status}`;
    throw Object.assign(new Error(message), { status: res.status });
  }
  return json.data;
}

function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text === null || text === undefined ? '' : String(text);
  if (className) td.className = className;
  return td;
}

function button(label, onClick) {
  const td = document.createElement('td');
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.addEventListener('click', () => onClick().catch(showError));
  td.append(b);
  return td;
}

function fill(tableId, rows) {
  const tbody = $(tableId).querySelector('tbody');
  tbody.replaceChildren(...rows);
}

function showError(err) {
  $('admin-error').textContent = err.message;
}

const limit = (v) => (v === null ? 'unlimited' : v.toLocaleString('en-US'));

async function loadKeys() {
  const keys = await call('GET', '/keys');
  fill('keys', keys.map((k) => {
    const tr = document.createElement('tr');
    tr.dataset.key = k.id;
    const plan = document.createElement('select');
    for (const p of ['free', 'basic', 'pro', 'enterprise']) plan.append(new Option(p, p, p === k.plan, p === k.plan));
    plan.disabled = k.revokedAt !== null;
    plan.setAttribute('aria-label', `plan of ${k.id}`);
    plan.addEventListener('change', () => call('PATCH', `/keys/${k.id}`, { plan: plan.value }).then(refresh).catch(showError));
    const planCell = document.createElement('td');
    planCell.append(plan);
    tr.append(cell(k.id), cell(k.name), planCell, cell(limit(k.limits.monthlyChars), 'num'), cell(limit(k.limits.rpm), 'num'),
      cell(k.revokedAt === null ? 'active' : 'revoked'));
    tr.append(k.revokedAt === null ? button('Revoke', async () => { await call('DELETE', `/keys/${k.id}`); await refresh(); }) : cell(''));
    return tr;
  }));
}

async function loadUsage() {
  const report = await call('GET', `/usage?from=${$('usage-from').value}&to=${$('usage-to').value}`);
  fill('usage', report.rows.map((r) => {
    const tr = document.createElement('tr');
    tr.append(cell(r.day), cell(r.keyId), cell(r.plan), cell(r.characters, 'num'), cell(r.requests, 'num'),
      cell(r.documentCharacters, 'num'), cell(r.memoryCharacters, 'num'));
    return tr;
  }));
  const t = report.totals;
  $('usage-total').textContent = `Total: ${t.characters} characters, ${t.requests} requests, ${t.documentCharacters} document characters, ${t.memoryCharacters} memory characters.`;
  // Characters per day, all keys of the report together: one bar a day, scaled to the busiest.
  const perDay = new Map();
  for (const r of report.rows) perDay.set(r.day, (perDay.get(r.day) ?? 0) + r.characters);
  const most = Math.max(1, ...perDay.values());
  $('usage-chart').replaceChildren(...[...perDay].map(([day, chars]) => {
    const bar = document.createElement('div');
    bar.className = 'bar';
    bar.title = `${day}: ${chars} characters`;
    bar.style.height = `${Math.max(2, Math.round((chars / most) * 100))}%`;
    return bar;
  }));
}

const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

async function loadModels() {
  const data = await call('GET', '/models');
  fill('models', data.models.map((m) => {
    const tr = document.createElement('tr');
    tr.dataset.model = m.name;
    tr.append(cell(m.name), cell(m.status), cell(m.loaded ? 'yes' : 'no'), cell(m.memoryBytes > 0 ? mib(m.memoryBytes) : '', 'num'),
      cell(m.requests.toLocaleString('en-US'), 'num'));
    return tr;
  }));
  $('models-total').textContent = `${data.loaded} of ${data.installed} loaded, ${mib(data.memoryBytes)}` +
    (data.budgetBytes === null ? ' (no memory budget).' : ` of the ${mib(data.budgetBytes)} budget (DRAGOMAN_MODEL_MEMORY).`);
}

async function loadJobs() {
  const jobs = await call('GET', '/jobs');
  fill('jobs', jobs.map((j) => {
    const tr = document.createElement('tr');
    tr.append(cell(j.id), cell(j.keyId), cell(j.filename), cell(j.status), cell(j.characters, 'num'),
      button('Delete', async () => { await call('DELETE', `/jobs/${j.keyId}/${j.id}`); await loadJobs(); }));
    return tr;
  }));
}

async function loadAudit() {
  const entries = await call('GET', '/audit-log');
  fill('audit-log', entries.slice(-200).reverse().map((e) => {
    const tr = document.createElement('tr');
    tr.append(cell(new Date(e.at).toISOString()), cell(e.actor), cell(e.action), cell(e.keyId), cell(JSON.stringify(e.detail)));
    return tr;
  }));
}

async function refresh() {
  $('admin-error').textContent = '';
  await Promise.all([loadKeys(), loadUsage(), loadModels(), loadJobs(), loadAudit()]);
}

function start() {
  const today = new Date().toISOString().slice(0, 10);
  $('usage-from').value = `${today.slice(0, 7)}-01`;
  $('usage-to').value = today;

  $('login').addEventListener('submit', async (event) => {
    event.preventDefault();
    token = $('token').value;
    try {
      await refresh();
      $('login').hidden = true;
      $('admin').hidden = false;
      $('login-error').textContent = '';
    } catch (err) {
      token = '';
      $('login-error').textContent = err.status === 401 ? 'The token was refused.' : err.message;
    }
  });

  $('create-key').addEventListener('submit', async (event) => {
    event.preventDefault();
    const monthly = $('new-monthly').value.trim();
    try {
      const made = await call('POST', '/keys', {
        plan: $('new-plan').value,
        ...($('new-name').value ? { name: $('new-name').value } : {}),
        ...(monthly ? { monthlyChars: Number(monthly) } : {}),
      });
      $('new-secret').textContent = `Created ${made.id}. Its key, shown once: ${made.secret}`;
      await refresh();
    } catch (err) {
      showError(err);
    }
  });

  $('usage-form').addEventListener('submit', (event) => {
    event.preventDefault();
    loadUsage().catch(showError);
  });
}

start();
