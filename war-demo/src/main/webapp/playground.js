/*
 * Sluice playground: fires N requests at R per second at one endpoint of this server, counts what the rate limiter
 * allowed and denied per half second in which the requests were sent (so a denial is charted with the requests it
 * came among, not after those that were slow to answer), draws it as an SVG bar chart, and shows the last response
 * in full.
 * No libraries, no build step: plain browser JavaScript.
 */
(function () {
  'use strict';

  var BUCKET_MS = 500;            // one bar per half second
  var VISIBLE_BUCKETS = 60;       // the chart shows the last 30 seconds
  var SVG_NS = 'http://www.w3.org/2000/svg';
  var CHART = { width: 640, height: 240, left: 34, right: 8, top: 10, bottom: 24 };

  var $ = function (id) { return document.getElementById(id); };
  var state = freshState();
  var timers = [];
  var redrawTimer = null;

  function freshState() {
    return { startMs: null, buckets: [], allowed: 0, denied: 0, other: 0, inFlight: 0, scheduled: 0 };
  }

  function showPolicy() {
    var option = $('endpoint').selectedOptions[0];
    $('policy').textContent = option.getAttribute('data-policy');
  }

  function fire() {
    // relative to the page, so the WAR works at any context path: /api/hello -> /CONTEXT/api/hello
    var url = new URL($('endpoint').value.replace(/^\//, ''), document.baseURI).pathname;
    var count = Math.max(1, Math.min(1000, parseInt($('count').value, 10) || 1));
    var rate = Math.max(0.1, Math.min(100, parseFloat($('rate').value) || 1));
    if (state.startMs === null) {
      state.startMs = performance.now();
    }
    stop();
    state.scheduled = count;
    for (var i = 0; i < count; i++) {
      timers.push(setTimeout(send, Math.round(i * 1000 / rate), url));
    }
    $('fire').disabled = true;
    $('stop').disabled = false;
    if (redrawTimer === null) {
      redrawTimer = setInterval(draw, 250);
    }
    status('Firing ' + count + ' requests at ' + rate + ' per second at ' + url + ' …');
  }

  function send(url) {
    // the run this request belongs to: after Clear, its answer no longer counts (nor changes the page)
    var run = state;
    var sentMs = performance.now();     // charted when sent, not when answered
    run.scheduled--;
    run.inFlight++;
    updateTotals();
    fetch(url, { cache: 'no-store', headers: { 'Accept': 'application/json, text/plain' } })
      .then(function (response) {
        return response.text().then(function (body) {
          if (run === state) {
            record(url, response, body, sentMs);
          }
        });
      })
      .catch(function (error) {
        if (run === state) {
          recordError(url, error, sentMs);
        }
      })
      .then(function () { finishOne(run); });
  }

  function record(url, response, body, sentMs) {
    var kind = response.status === 429 ? 'denied' : (response.ok ? 'allowed' : 'other');
    count(kind, sentMs);
    var headers = [];
    response.headers.forEach(function (value, name) { headers.push(name + ': ' + value); });
    headers.sort();
    $('last-status').textContent = response.status + ' ' + (response.statusText || '');
    $('last-status').className = kind;
    $('last-url').textContent = 'GET ' + url;
    $('last-headers').textContent = headers.join('\n');
    $('last-body').textContent = body;
  }

  function recordError(url, error, sentMs) {
    count('other', sentMs);
    $('last-status').textContent = 'network error';
    $('last-status').className = 'other';
    $('last-url').textContent = 'GET ' + url;
    $('last-headers').textContent = '';
    $('last-body').textContent = String(error);
  }

  /** Counts an answer of {@code kind} in the half second its request was sent in. */
  function count(kind, sentMs) {
    var index = Math.max(0, Math.floor((sentMs - state.startMs) / BUCKET_MS));
    var bucket = state.buckets[index] || (state.buckets[index] = { allowed: 0, denied: 0, other: 0 });
    bucket[kind]++;
    state[kind]++;
  }

  function finishOne(run) {
    run.inFlight--;
    if (run !== state) {
      return;             // cleared while in flight
    }
    updateTotals();
    draw();
    if (state.inFlight === 0 && state.scheduled === 0) {
      done('Done: ' + state.allowed + ' allowed, ' + state.denied + ' denied, ' + state.other + ' other.');
    }
  }

  function stop() {
    timers.forEach(clearTimeout);
    timers = [];
    state.scheduled = 0;
  }

  function done(message) {
    $('fire').disabled = false;
    $('stop').disabled = true;
    clearInterval(redrawTimer);
    redrawTimer = null;
    status(message);
  }

  function clear() {
    stop();
    state = freshState();
    updateTotals();
    draw();
    done('Cleared.');
  }

  function status(message) {
    $('status-line').textContent = message;
  }

  function updateTotals() {
    $('allowed-count').textContent = state.allowed;
    $('denied-count').textContent = state.denied;
    $('other-count').textContent = state.other;
    $('inflight-count').textContent = state.inFlight;
  }

  function draw() {
    var svg = $('chart');
    while (svg.firstChild) {
      svg.removeChild(svg.firstChild);
    }
    var nowIndex = state.startMs === null ? 0 : Math.floor((performance.now() - state.startMs) / BUCKET_MS);
    var first = Math.max(0, nowIndex - VISIBLE_BUCKETS + 1);
    var max = 1;
    for (var i = first; i <= nowIndex; i++) {
      var b = state.buckets[i];
      if (b) {
        max = Math.max(max, b.allowed + b.denied + b.other);
      }
    }
    var plotWidth = CHART.width - CHART.left - CHART.right;
    var plotHeight = CHART.height - CHART.top - CHART.bottom;
    var barWidth = plotWidth / VISIBLE_BUCKETS;
    var unit = plotHeight / max;
    var baseY = CHART.top + plotHeight;

    axis(svg, max, baseY, unit, plotWidth);
    for (var k = 0; k < VISIBLE_BUCKETS; k++) {            // the time axis: a label every 5 seconds, all 30 s of it
      if ((first + k) % (5000 / BUCKET_MS) === 0) {
        var labelX = CHART.left + k * barWidth;
        var tick = document.createElementNS(SVG_NS, 'line');
        tick.setAttribute('x1', labelX);
        tick.setAttribute('x2', labelX);
        tick.setAttribute('y1', baseY);
        tick.setAttribute('y2', baseY + 4);
        svg.appendChild(tick);
        text(svg, labelX, CHART.height - 6, ((first + k) * BUCKET_MS / 1000) + ' s', 'middle');
      }
    }
    for (var j = first; j <= nowIndex; j++) {
      var x = CHART.left + (j - first) * barWidth;
      var bucket = state.buckets[j];
      if (!bucket) {
        continue;
      }
      var y = baseY;
      ['allowed', 'denied', 'other'].forEach(function (kind) {
        if (bucket[kind] > 0) {
          var h = bucket[kind] * unit;
          y -= h;
          var bar = rect(svg, x + 1, y, Math.max(1, barWidth - 2), h, kind);
          bar.setAttribute('data-bucket', j);
          bar.setAttribute('data-count', bucket[kind]);
          var title = document.createElementNS(SVG_NS, 'title');
          title.textContent = bucket[kind] + ' ' + kind + ', sent at ' + (j * BUCKET_MS / 1000) + ' s';
          bar.appendChild(title);
        }
      });
    }
  }

  function axis(svg, max, baseY, unit, plotWidth) {
    var step = Math.max(1, Math.ceil(max / 5));
    for (var v = 0; v <= max; v += step) {
      var y = baseY - v * unit;
      var line = document.createElementNS(SVG_NS, 'line');
      line.setAttribute('x1', CHART.left);
      line.setAttribute('x2', CHART.left + plotWidth);
      line.setAttribute('y1', y);
      line.setAttribute('y2', y);
      svg.appendChild(line);
      text(svg, CHART.left - 4, y + 4, String(v), 'end');
    }
  }

  function rect(svg, x, y, w, h, kind) {
    var r = document.createElementNS(SVG_NS, 'rect');
    r.setAttribute('x', x);
    r.setAttribute('y', y);
    r.setAttribute('width', w);
    r.setAttribute('height', h);
    r.setAttribute('class', kind);
    svg.appendChild(r);
    return r;
  }

  function text(svg, x, y, content, anchor) {
    var t = document.createElementNS(SVG_NS, 'text');
    t.setAttribute('x', x);
    t.setAttribute('y', y);
    t.setAttribute('text-anchor', anchor);
    t.textContent = content;
    svg.appendChild(t);
  }

  $('endpoint').addEventListener('change', showPolicy);
  $('fire').addEventListener('click', fire);
  $('stop').addEventListener('click', function () {
    stop();
    if (state.inFlight === 0) {
      done('Stopped.');
    } else {
      status('Stopping: waiting for ' + state.inFlight + ' request(s) in flight …');
    }
  });
  $('clear').addEventListener('click', clear);
  // this server's own address, whatever its port and context path
  $('curl-example').textContent = 'curl -i ' + new URL('api/hello', document.baseURI).href;
  showPolicy();
  draw();
}());
