// The wiki renders on the client: every view fetches JSON from /wiki/api and builds the DOM.
const app = document.getElementById('app'); const base = app.dataset.base;
const esc = s => String(s).replace(/[&<>"']/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
const api = (p, opts) => fetch(base + '/wiki/api' + p, opts).then(r => r.json());
function toast(text) {
  const t = document.createElement('div'); t.className = 'toast'; t.setAttribute('role', 'status'); t.textContent = text;
  document.body.appendChild(t); toastUntilInput(t);
}
async function search(q, page) {
  app.innerHTML = '<p aria-busy="true">Loading…</p>';
  const data = await api('/search?' + new URLSearchParams({q: q, page: page}));
  const items = data.results.map(r => `<li><a href="${base}/wiki/p/${r.slug}">${esc(r.title)}</a>
    <span class="crumbs">${esc(r.section)}</span></li>`).join('');
  app.innerHTML = `<h1>Documentation</h1><form id="search" role="search"><label for="q">Search the docs</label>
    <input id="q" name="q" size="40" value="${esc(q)}"> <button class="btn" type="submit">Search</button></form>
    <p>${data.total} pages</p><ul class="results">${items}</ul><nav class="pager" aria-label="Pages">
    ${page > 1 ? '<button class="btn secondary" id="prev">Previous page</button>' : ''}
    <span>Page ${page} of ${data.pages}</span>
    ${page < data.pages ? '<button class="btn secondary" id="next">Next page</button>' : ''}</nav>`;
  document.getElementById('search').addEventListener('submit', e => { e.preventDefault();
    search(document.getElementById('q').value, 1); });
  document.getElementById('prev')?.addEventListener('click', () => search(q, page - 1));
  document.getElementById('next')?.addEventListener('click', () => search(q, page + 1));
}
async function article(slug, editing) {
  app.innerHTML = '<p aria-busy="true">Loading…</p>';
  const p = await api('/pages/' + slug);
  if (p.error) { app.innerHTML = `<p class="error">${esc(p.error)}</p>`; return; }
  const facts = Object.entries(p.facts).map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('');
  if (!editing) {
    app.innerHTML = `<p class="crumbs">${esc(p.section)}</p><article><h1>${esc(p.title)}</h1>
      <dl class="facts">${facts}</dl>${p.body.split('\n').map(x => `<p>${esc(x)}</p>`).join('')}
      <p class="crumbs">Last edited ${esc(p.updated)}</p></article>
      <button class="btn secondary" id="edit">Edit page</button>`;
    document.getElementById('edit').addEventListener('click', () => article(slug, true));
    return;
  }
  const fields = Object.entries(p.facts).map(([k, v], i) => `<label for="f${i}">${esc(k)}</label>
    <input id="f${i}" data-key="${esc(k)}" size="40" value="${esc(v)}">`).join('');
  app.innerHTML = `<h1>Edit: ${esc(p.title)}</h1><form id="editor">${fields}
    <label for="summary">Edit summary</label><input id="summary" size="40">
    <p><button class="btn" type="submit">Save page</button> <button class="btn secondary" type="button" id="cancel">Cancel</button></p></form>`;
  document.getElementById('cancel').addEventListener('click', () => article(slug, false));
  document.getElementById('editor').addEventListener('submit', async e => { e.preventDefault();
    const facts = {}; document.querySelectorAll('#editor input[data-key]').forEach(i => facts[i.dataset.key] = i.value);
    const r = await api('/pages/' + slug, {method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({facts: facts, summary: document.getElementById('summary').value})});
    if (r.error) { toast(r.error); return; }
    await article(slug, false); toast('Page saved');
  });
}
if (app.dataset.view === 'page') article(app.dataset.slug, false);
else search(new URLSearchParams(location.search).get('q') || '', 1);
