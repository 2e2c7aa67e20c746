// Sprint board, rendered on the client from /board/api/board JSON. Pointer drag moves a card
// to another column; a click (no movement) toggles its selection for the bulk archive.
const boardEl = document.getElementById('board'); const base = boardEl.dataset.base;
const bulk = document.getElementById('bulk'), count = document.getElementById('sel-count');
const filter = document.getElementById('label-filter');
const esc = s => String(s).replace(/[&<>"']/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
const post = (path, body) => fetch(base + '/board' + path, {method: 'POST', headers: {'Content-Type': 'application/json'},
  body: JSON.stringify(body)}).then(r => r.json());
let drag = null;
function selected() { return [...document.querySelectorAll('.kcard.selected')]; }
function updateBulk() { const n = selected().length; bulk.disabled = n === 0; count.textContent = n + ' selected'; }
function applyFilter() {
  document.querySelectorAll('.kcard').forEach(c => { c.hidden = !!filter.value && c.dataset.label !== filter.value; });
}
async function load() {
  const d = await fetch(base + '/board/api/board').then(r => r.json());
  boardEl.innerHTML = d.columns.map(col => `<section class="col" data-col="${col.id}"><h2>${esc(col.name)}
    <small>(${col.cards.length})</small></h2>` + col.cards.map(k => `<div class="kcard" data-card="${k.id}"
    data-label="${esc(k.label)}" aria-pressed="false"><span class="klabel ${esc(k.label)}">${esc(k.label)}</span>${esc(k.title)}</div>`
  ).join('') + '</section>').join('');
  boardEl.removeAttribute('aria-busy');
  document.querySelectorAll('.kcard').forEach(c => c.addEventListener('pointerdown', e => {
    drag = {card: c, x: e.clientX, y: e.clientY, moved: false}; }));
  applyFilter(); updateBulk();
}
document.addEventListener('pointermove', e => { if (!drag) return; const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  if (!drag.moved && Math.hypot(dx, dy) > 6) { drag.moved = true; drag.card.classList.add('dragging'); }
  if (drag.moved) { drag.card.style.left = (e.clientX - 110) + 'px'; drag.card.style.top = (e.clientY - 16) + 'px'; } });
document.addEventListener('pointerup', async e => { if (!drag) return; const d = drag; drag = null;
  if (!d.moved) { d.card.classList.toggle('selected');
    d.card.setAttribute('aria-pressed', d.card.classList.contains('selected')); updateBulk(); return; }
  const col = document.elementFromPoint(e.clientX, e.clientY)?.closest('.col'); d.card.classList.remove('dragging');
  if (col) await post('/move', {card: +d.card.dataset.card, column: +col.dataset.col});
  await load(); });
filter.addEventListener('change', applyFilter);
bulk.addEventListener('click', async () => {
  const ids = selected().map(c => +c.dataset.card); if (!ids.length) return;
  bulk.disabled = true; await post('/archive', {card: ids}); await load(); });
load();
