// The playground: fires requests at the chosen endpoint and draws allowed and denied requests per half second.
// No libraries, no network beyond this server.
(function () {
  'use strict';
  const $ = id => document.getElementById(id);
  const BUCKET_MS = 500;
  const SHOWN = ['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset',
    'Retry-After', 'Cache-Control', 'Content-Type'];
  let buckets = [];            // {allowed, denied} per half second since the first request
  let start = null;
  let totals = {allowed: 0, denied: 0, inflight: 0};
  let timer = null;

  function bucket(now) {
    if (start === null) start = now;
    const i = Math.floor((now - start) / BUCKET_MS);
    while (buckets.length <= i) buckets.push({allowed: 0, denied: 0});
    return buckets[i];
  }

  function show(response, text) {
    $('status').textContent = response.status + (response.status === 429 ? ' Too Many Requests' : '');
    $('headers').textContent = SHOWN.filter(h => response.headers.get(h) !== null)
      .map(h => h + ': ' + response.headers.get(h)).join('\n');
    $('body').textContent = text;
  }

  function fireOne(url) {
    totals.inflight++;
    render();
    fetch(url, {cache: 'no-store'}).then(response => response.text().then(text => {
      const b = bucket(Date.now());
      if (response.status === 429 || response.status === 503) { b.denied++; totals.denied++; }
      else { b.allowed++; totals.allowed++; }
      show(response, text);
    })).catch(e => {
      $('status').textContent = 'network error: ' + e;
    }).finally(() => { totals.inflight--; render(); });
  }

  function fire() {
    stop();
    const url = $('endpoint').value;
    let left = Math.max(1, Math.min(1000, parseInt($('count').value, 10) || 1));
    const every = 1000 / Math.max(1, Math.min(100, parseInt($('rate').value, 10) || 1));
    bucket(Date.now());
    fireOne(url);
    left--;
    if (left > 0) {
      timer = setInterval(() => {
        fireOne(url);
        if (--left <= 0) stop();
      }, every);
    }
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
  }

  function clear() {
    stop();
    buckets = []; start = null; totals = {allowed: 0, denied: 0, inflight: totals.inflight};
    $('status').textContent = '—'; $('headers').textContent = ''; $('body').textContent = '';
    render();
  }

  function render() {
    $('allowed').textContent = totals.allowed;
    $('denied').textContent = totals.denied;
    $('inflight').textContent = totals.inflight;
    const canvas = $('chart');
    const g = canvas.getContext('2d');
    const w = canvas.width, h = canvas.height, pad = 24;
    g.clearRect(0, 0, w, h);
    const n = Math.max(20, buckets.length);
    const most = Math.max(4, ...buckets.map(b => b.allowed + b.denied));
    const barW = (w - 2 * pad) / n;
    g.strokeStyle = '#ccc'; g.beginPath(); g.moveTo(pad, h - pad); g.lineTo(w - pad, h - pad); g.stroke();
    g.fillStyle = '#555'; g.font = '12px sans-serif';
    g.fillText(most + ' per ' + BUCKET_MS + ' ms', pad, 14);
    g.fillText('time →', w - pad - 40, h - 6);
    buckets.forEach((b, i) => {
      const x = pad + i * barW;
      const ha = (h - 2 * pad) * b.allowed / most;
      const hd = (h - 2 * pad) * b.denied / most;
      g.fillStyle = '#2da44e'; g.fillRect(x + 1, h - pad - ha, Math.max(1, barW - 2), ha);
      g.fillStyle = '#e5534b'; g.fillRect(x + 1, h - pad - ha - hd, Math.max(1, barW - 2), hd);
    });
  }

  $('fire').addEventListener('click', fire);
  $('clear').addEventListener('click', clear);
  render();
})();
