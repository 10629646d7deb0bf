// The enqueue-mode page: POSTs jobs, shows each answer, and polls the Location of each 202 until DONE or FAILED.
(function () {
  'use strict';
  var base = location.pathname.replace(/[^/]*$/, '');     // the context path, as deployed
  var body = document.getElementById('jobs-body');
  var counts = { done: 0, queued: 0, refused: 0 };
  var sent = 0;

  function count(kind) {
    counts[kind]++;
    document.getElementById(kind + '-count').textContent = counts[kind];
  }

  function cell(row, text, cls) {
    var td = document.createElement('td');
    td.textContent = text;
    if (cls) { td.className = cls; }
    row.appendChild(td);
    return td;
  }

  function poll(url, statusCell) {
    fetch(url, { cache: 'no-store' }).then(function (r) { return r.json(); }).then(function (job) {
      statusCell.textContent = job.status + (job.deliveries > 1 ? ' (delivered ' + job.deliveries + ' times)' : '');
      if (job.status !== 'DONE' && job.status !== 'FAILED') {
        setTimeout(function () { poll(url, statusCell); }, 1000);
      }
    }).catch(function () {
      statusCell.textContent = 'unknown';
    });
  }

  function post() {
    var n = ++sent;
    var row = document.createElement('tr');
    cell(row, String(n));
    var answer = cell(row, '…');
    var job = cell(row, '');
    var status = cell(row, '');
    body.insertBefore(row, body.firstChild);
    fetch(base + 'api/jobs', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ job: n }) }).then(function (r) {
      answer.textContent = r.status + ' ' + r.statusText;
      if (r.status === 202) {
        count('queued');
        answer.className = 'other';
        var where = r.headers.get('Location');
        job.textContent = where;
        status.textContent = 'QUEUED';
        poll(where, status);
      } else if (r.status === 429) {
        count('refused');
        answer.className = 'denied';
        job.textContent = 'queue full: Retry-After ' + r.headers.get('Retry-After') + ' s';
      } else {
        count('done');
        answer.className = 'allowed';
        status.textContent = r.ok ? 'DONE (at once)' : '';
      }
    }).catch(function (e) {
      answer.textContent = 'failed: ' + e;
    });
  }

  document.getElementById('post-one').addEventListener('click', post);
  document.getElementById('post-eight').addEventListener('click', function () {
    for (var i = 0; i < 8; i++) { post(); }
  });
  document.getElementById('clear-jobs').addEventListener('click', function () {
    body.textContent = '';
  });
}());
