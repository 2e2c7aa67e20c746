// The thread view renders on the client: it fetches JSON from /forum/api and builds the posts,
// vote buttons, the reply form (with an attachment) and the moderator tools.
const app = document.getElementById('app'); const base = app.dataset.base; const tid = app.dataset.thread;
const esc = s => String(s).replace(/[&<>"']/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
const api = (p, opts) => fetch(base + '/forum/api' + p, opts).then(r => r.json());
function toast(text) {
  const t = document.createElement('div'); t.className = 'toast'; t.setAttribute('role', 'status'); t.textContent = text;
  document.body.appendChild(t); toastUntilInput(t);
}
async function act(path, body, done) {
  const opts = {method: 'POST'};
  if (body instanceof FormData) opts.body = body;
  else if (body) { opts.headers = {'Content-Type': 'application/json'}; opts.body = JSON.stringify(body); }
  const r = await api(path, opts);
  if (r.error) { toast(r.error); return; }
  await render(); toast(done);
}
function post(p, i, t) {
  const files = p.files.map(f => `<li><a href="${base}/forum/files/${f.id}">${esc(f.name)}</a></li>`).join('');
  const tools = [];
  if (t.me) tools.push(p.voted ? '<span class="meta">You upvoted this</span>'
    : `<button class="btn secondary" data-vote="${p.id}">Upvote</button>`);
  if (t.can_solve && i > 0 && !p.solution) tools.push(`<button class="btn secondary" data-solve="${p.id}">Mark as solution</button>`);
  if (t.me && t.me.moderator && i > 0) tools.push(`<button class="btn btn-danger" data-delete="${p.id}">Delete post</button>`);
  return `<article class="card post${p.solution ? ' solution' : ''}" aria-label="Post ${i + 1} by ${esc(p.author)}">
    <p class="meta"><strong>${esc(p.author)}</strong> · ${esc(p.created)} · ${p.votes} votes
    ${p.solution ? '<span class="badge solved">Accepted answer</span>' : ''}</p>
    ${p.body.split('\n').map(x => `<p>${esc(x)}</p>`).join('')}
    ${files ? `<p class="meta">Attachments</p><ul>${files}</ul>` : ''}<div class="tools">${tools.join(' ')}</div></article>`;
}
async function render() {
  const t = await api('/threads/' + tid);
  if (t.error) { app.innerHTML = `<p class="error">${esc(t.error)}</p>`; return; }
  let reply;
  if (t.locked) reply = '<p class="card">This thread is locked: no new replies.</p>';
  else if (!t.me) reply = `<p class="card"><a href="${base}/forum/login?next=/forum/t/${t.id}">Log in to reply</a></p>`;
  else reply = `<form id="reply" class="card"><label for="body">Your reply</label>
    <textarea id="body" name="body" rows="4" cols="70"></textarea>
    <label for="file">Attach a file</label><input id="file" name="file" type="file">
    <p><button class="btn" type="submit">Post reply</button></p></form>`;
  let mod = '';
  if (t.me && t.me.moderator) {
    const opts = t.categories.map(c => `<option${c === t.category ? ' selected' : ''}>${esc(c)}</option>`).join('');
    mod = `<section class="card tools" aria-label="Moderation"><div><label for="move">Move to category</label>
      <select id="move">${opts}</select></div><button class="btn secondary" id="do-move">Move thread</button>
      ${t.locked ? '' : '<button class="btn btn-danger" id="do-lock">Lock thread</button>'}</section>`;
  }
  app.innerHTML = `<p class="meta"><a href="${base}/forum/c/${t.category_slug}">${esc(t.category)}</a></p>
    <h1>${esc(t.title)}${t.solution_id ? '<span class="badge solved">Solved</span>' : ''}${t.locked ? '<span class="badge locked">Locked</span>' : ''}</h1>
    <p class="meta">Started by ${esc(t.author)} · ${t.votes} votes</p>${mod}
    ${t.posts.map((p, i) => post(p, i, t)).join('')}${reply}`;
  app.querySelectorAll('[data-vote]').forEach(b => b.addEventListener('click', () => act(`/posts/${b.dataset.vote}/vote`, null, 'Vote recorded')));
  app.querySelectorAll('[data-solve]').forEach(b => b.addEventListener('click', () => act(`/posts/${b.dataset.solve}/solve`, null, 'Marked as solution')));
  app.querySelectorAll('[data-delete]').forEach(b => b.addEventListener('click', () => act(`/posts/${b.dataset.delete}/delete`, null, 'Post deleted')));
  document.getElementById('do-move')?.addEventListener('click', () => act(`/threads/${t.id}/move`, {category: document.getElementById('move').value}, 'Thread moved'));
  document.getElementById('do-lock')?.addEventListener('click', () => act(`/threads/${t.id}/lock`, null, 'Thread locked'));
  document.getElementById('reply')?.addEventListener('submit', e => { e.preventDefault();
    act(`/threads/${t.id}/reply`, new FormData(e.target), 'Reply posted'); });
}
render();
