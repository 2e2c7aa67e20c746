(() => {
  const app = document.getElementById('app'), base = app.dataset.base, cv = document.getElementById('map');
  const ctx = cv.getContext('2d'), status = document.getElementById('status');
  let mode = 'select', img = new Image(), stops = [], pin = null, down = null;
  const draw = () => {
    ctx.drawImage(img, 0, 0);
    if (mode === 'route' && stops.length) {
      ctx.strokeStyle = '#e8701a'; ctx.lineWidth = 3; ctx.beginPath();
      stops.forEach((s, i) => i ? ctx.lineTo(s.x, s.y) : ctx.moveTo(s.x, s.y)); ctx.stroke();
      ctx.fillStyle = '#e8701a'; stops.forEach((s) => { ctx.beginPath(); ctx.arc(s.x, s.y, 4, 0, 7); ctx.fill(); });
    }
    if (mode === 'pin' && pin) { ctx.fillStyle = '#dc1e28'; ctx.beginPath(); ctx.arc(pin.x, pin.y, 6, 0, 7); ctx.fill(); }
  };
  const load = (src) => { img = new Image(); img.onload = draw; img.src = src; };
  load(cv.dataset.src);
  const at = (e) => { const r = cv.getBoundingClientRect();
    return {x: (e.clientX - r.left) * cv.width / r.width, y: (e.clientY - r.top) * cv.height / r.height}; };
  const post = async (path, body) => (await fetch(base + path, {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify(body)})).json();
  const toast = (text) => { const t = document.createElement('div'); t.className = 'toast'; t.setAttribute('role', 'status');
    t.textContent = text; document.body.appendChild(t); toastUntilInput(t); };
  document.querySelectorAll('[data-mode]').forEach((b) => b.addEventListener('click', () => {
    mode = b.dataset.mode;
    document.querySelectorAll('[data-mode]').forEach((o) => o.setAttribute('aria-pressed', String(o === b)));
    document.querySelectorAll('[data-panel]').forEach((p) => p.classList.toggle('on', p.dataset.panel === mode));
    status.textContent = {select: 'Click a place on the map.', pin: 'Click the map where the pin goes.',
      route: 'Click the stops in order.', zone: 'Drag a zone handle.'}[mode];
    draw();
  }));
  const renderStops = () => {
    document.getElementById('stops').innerHTML = '';
    stops.forEach((s) => { const li = document.createElement('li'); li.textContent = s.name; document.getElementById('stops').appendChild(li); });
    document.getElementById('stops_in').value = stops.map((s) => s.id).join(',');
    draw();
  };
  document.getElementById('undo_stop').addEventListener('click', () => { stops.pop(); renderStops(); });
  cv.addEventListener('click', async (e) => {
    const p = at(e);
    if (mode === 'pin') {
      pin = p; document.getElementById('pin_x').value = p.x.toFixed(1); document.getElementById('pin_y').value = p.y.toFixed(1);
      document.getElementById('save_pin').disabled = false; status.textContent = 'Pin placed. Name it and save.'; draw();
    } else if (mode === 'select' || mode === 'route') {
      const r = await post('/maps/api/pick', p);
      if (!r.place) { status.textContent = 'No place there.'; return; }
      if (mode === 'select') {
        document.getElementById('place_id').value = r.place.id; document.getElementById('save_place').disabled = false;
        status.textContent = 'Selected: ' + r.place.name + ' (' + r.place.kind + ')';
      } else { stops.push({...r.place, x: p.x, y: p.y}); status.textContent = 'Added stop: ' + r.place.name; renderStops(); }
    }
  });
  cv.addEventListener('pointerdown', (e) => { if (mode === 'zone') { down = at(e); e.preventDefault(); } });
  cv.addEventListener('pointerup', async (e) => {
    if (mode !== 'zone' || !down) return;
    const up = at(e), r = await post('/maps/api/zone', {x0: down.x, y0: down.y, x1: up.x, y1: up.y}); down = null;
    if (!r.zone) { status.textContent = 'Start the drag on a zone handle.'; return; }
    document.getElementById('zone_id').value = r.zone; document.getElementById('zone_r').value = r.radius;
    document.getElementById('save_zone').disabled = false;
    status.textContent = 'Zone around ' + r.depot + ': ' + r.radius + ' m (not saved)';
    load(cv.dataset.src + '&zone=' + r.zone + ':' + r.radius);
  });
  document.querySelectorAll('button.share').forEach((b) => b.addEventListener('click', async () => {
    const r = await post('/maps/api/share', {fav: +b.dataset.fav});
    if (r.code) toast('Share code ' + r.code);
  }));
})();
