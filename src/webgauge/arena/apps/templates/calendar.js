// Room calendar, rendered on the client from /calendar/api JSON: a day grid of rooms x hours.
const app = document.getElementById('app'); const base = app.dataset.base;
const dlg = document.getElementById('dlg'); const dlgTitle = document.getElementById('dlg-title');
const dlgBody = document.getElementById('dlg-body');
const esc = s => String(s).replace(/[&<>"']/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
const api = (p, opts) => fetch(base + '/calendar/api' + p, opts).then(r => r.json());
function toast(text) {
  const t = document.createElement('div'); t.className = 'toast'; t.setAttribute('role', 'status'); t.textContent = text;
  document.body.appendChild(t); toastUntilInput(t);
}
const close = () => dlg.close();
async function show(day) {
  app.innerHTML = '<p aria-busy="true">Loading…</p>';  // the old day's grid goes at once, never clicked by mistake
  const d = await api('/day?' + new URLSearchParams({date: day}));
  let cells = '<div class="head">Time</div>' + d.rooms.map(r => `<div class="head">${esc(r)}</div>`).join('');
  for (const h of d.hours) {
    cells += `<div class="head">${String(h).padStart(2, '0')}:00</div>`;
    for (const r of d.rooms) {
      const b = d.bookings.find(x => x.room === r && x.start <= h && h < x.end);
      cells += b ? (b.start === h ? `<div class="busy"><button class="btn secondary booking" data-id="${b.id}"
                     aria-label="${esc(b.title)} in ${esc(r)} at ${String(h).padStart(2, '0')}:00">${esc(b.title)}</button></div>`
                   : '<div class="busy" aria-hidden="true"></div>')
        : `<div class="slot" role="button" tabindex="0" data-room="${esc(r)}" data-hour="${h}"
             aria-label="Book ${esc(r)} at ${String(h).padStart(2, '0')}:00"></div>`;
    }
  }
  app.innerHTML = `<h1>${esc(d.label)}</h1><div class="toolbar">
    <button class="btn secondary" id="prev">Previous day</button><button class="btn secondary" id="next">Next day</button>
    <div><label for="goto">Go to date</label><input id="goto" type="date" value="${d.date}"></div>
    <button class="btn" id="go">Go</button></div><div class="grid">${cells}</div>`;
  document.getElementById('prev').onclick = () => show(d.prev);
  document.getElementById('next').onclick = () => show(d.next);
  document.getElementById('go').onclick = () => show(document.getElementById('goto').value || d.date);
  document.querySelectorAll('.slot').forEach(s => s.onclick = () => book(d.date, s.dataset.room, +s.dataset.hour));
  document.querySelectorAll('.booking').forEach(b => b.onclick = () => details(d.date, +b.dataset.id));
}
function book(day, room, hour) {
  dlgTitle.textContent = `Book ${room}, ${day} at ${String(hour).padStart(2, '0')}:00`;
  dlgBody.innerHTML = `<form id="bk"><label for="title">Title</label><input id="title" size="32">
    <label for="hours">Duration</label><select id="hours"><option value="1">1 hour</option><option value="2">2 hours</option>
    <option value="3">3 hours</option></select><p class="error" id="bk-err"></p>
    <p><button class="btn secondary" type="button" id="bk-cancel">Close</button> <button class="btn" type="submit">Save booking</button></p></form>`;
  if (!dlg.open) dlg.showModal();
  document.getElementById('bk-cancel').onclick = close;
  document.getElementById('bk').onsubmit = async e => { e.preventDefault();
    const r = await api('/bookings', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({
      date: day, room: room, start: hour, hours: +document.getElementById('hours').value,
      title: document.getElementById('title').value})});
    if (r.error) { document.getElementById('bk-err').textContent = r.error; return; }
    close(); toast('Booked. Reference ' + r.reference); await show(day);
  };
}
async function details(day, id) {
  const b = await api('/bookings/' + id);
  dlgTitle.textContent = b.title;
  dlgBody.innerHTML = `<p>${esc(b.room)}, ${esc(b.date)}, ${b.start}:00–${b.end}:00 · organiser ${esc(b.organiser)}</p>
    <p><button class="btn secondary" id="d-close">Close</button> <button class="btn btn-danger" id="d-cancel">Cancel booking</button></p>`;
  if (!dlg.open) dlg.showModal();
  document.getElementById('d-close').onclick = close;
  document.getElementById('d-cancel').onclick = async () => {
    await api('/bookings/' + id + '/cancel', {method: 'POST'}); close(); await show(day); toast('Booking cancelled');
  };
}
show(app.dataset.day);
