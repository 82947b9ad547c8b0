// evcap view: a timeline of one capture. Everything the page shows comes
// from the JSON in #evcap-data and is put into the page with textContent
// or DOM calls, never parsed as HTML. The list is virtualized: only the
// rows in and near the viewport exist in the DOM.
(function () {
  'use strict';
  var LANES = ['native_in', 'normalized_out', 'legacy_out'];
  var ROW = 24, OVERSCAN = 12, MAX_PRE = 100000, MAX_HAY = 20000;
  var data = JSON.parse(document.getElementById('evcap-data').textContent);
  var $ = function (id) { return document.getElementById(id); };
  // What the integration sent to the agent gets a lane of its own, next to
  // what the agent printed, when the capture has any.
  if (data.records.some(function (a) { return a[2] === 'native_out'; })) {
    LANES.splice(1, 0, 'native_out');
    document.body.classList.add('with-out');
    var outHead = document.createElement('div');
    outHead.className = 'lane-name native_out';
    outHead.dataset.lane = 'native_out';
    outHead.textContent = 'native_out';
    var inHead = document.querySelector('.lane-name[data-lane="native_in"]');
    inHead.parentNode.insertBefore(outHead, inHead.nextSibling);
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function cut(s, n) { s = String(s); return s.length > n ? s.slice(0, n) + '…' : s; }
  function oneLine(s) { return String(s).replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' '); }
  function fmtT(ms) { return ms === null || ms === undefined ? '' : '+' + (ms / 1000).toFixed(3) + 's'; }
  function fmtDur(ms) { return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(2) + ' s'; }

  // ---- records -------------------------------------------------------
  var recs = data.records.map(function (a, i) {
    return { i: i, seq: a[0], t: a[1], stage: a[2], type: a[3], cause: a[4] || [], p: a[5], effects: [] };
  });
  var bySeq = new Map();
  recs.forEach(function (r) { bySeq.set(r.seq, r); });
  recs.forEach(function (r) {
    r.cause.forEach(function (c) { var n = bySeq.get(c); if (n) n.effects.push(r.seq); });
  });

  var start = null, end = null, tools = new Map(), blocks = new Map();
  function isObj(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }

  recs.forEach(function (r) {
    var p = r.p, lc = r.type.toLowerCase();
    r.kind = r.type;
    if (r.stage === 'meta') {
      if (r.type === 'capture.start' && isObj(p)) start = p;
      if (r.type === 'capture.end' && isObj(p)) {
        end = p;
        r.err = p.exitCode !== 0 && p.exitCode !== undefined;
        r.text = p.exitCode === null ? 'no exit status' + (p.signal ? ' (' + p.signal + ')' : '') : 'exit ' + p.exitCode;
      }
      if (r.text === undefined) r.text = isObj(p) ? JSON.stringify(p) : String(p);
    } else if (r.stage === 'normalized_out' && isObj(p)) {
      r.kind = p.kind || r.type;
      r.phase = p.phase || '';
      r.err = r.kind === 'error' || (r.kind === 'result' && (r.phase === 'failed' || (p.result && p.result.isError))) ||
        (r.kind === 'tool_result' && (r.phase === 'failed' || (p.toolResult && p.toolResult.isError)));
      r.retry = r.kind === 'retry';
      r.text = describe(p);
      if ((r.kind === 'tool' || r.kind === 'tool_result') && p.toolCallId) {
        var tc = tools.get(p.toolCallId);
        if (!tc) { tc = { id: p.toolCallId, name: '', summary: '', first: r, result: null, status: 'running' }; tools.set(p.toolCallId, tc); }
        if (p.tool) { tc.name = p.tool.name || tc.name; tc.summary = p.tool.summary || tc.summary; }
        if (r.kind === 'tool_result') { tc.result = r; tc.status = r.err ? 'error' : 'ok'; }
        r.toolCall = tc;
      }
      if ((r.kind === 'text' || r.kind === 'thinking') && (r.phase === 'delta' || r.phase === 'completed')) {
        var key = r.kind + '\u0000' + (p.messageId || '') + '\u0000' + (p.partId || '');
        var b = blocks.get(key);
        if (!b || b.done) { b = { kind: r.kind, chunks: [], full: null, done: false }; blocks.set(key, b); }
        if (r.phase === 'delta') b.chunks.push({ seq: r.seq, text: p.text || '' });
        else { b.full = p.text || ''; b.fullSeq = r.seq; b.done = true; }
        r.block = b;
      }
    } else if (r.stage === 'native_out') {
      r.text = typeof p === 'string' ? p : isObj(p) && p.method ? p.method + ' ' + p.path + (p.body ? ' ' + JSON.stringify(p.body) : '') : nativeText(p);
    } else if (r.stage === 'native_in') {
      r.err = lc.indexOf('error') >= 0 || lc.indexOf('fail') >= 0 ||
        (isObj(p) && (p.is_error === true || (typeof p.error === 'string' && p.error !== '') ||
          (isObj(p.error) && r.type !== 'system/api_retry')));
      r.retry = lc.indexOf('retry') >= 0 || (isObj(p) && isObj(p.properties) && isObj(p.properties.status) && p.properties.status.type === 'retry');
      if (r.retry) r.err = false;
      r.text = typeof p === 'string' ? p : nativeText(p);
    } else {
      r.text = typeof p === 'string' ? p : JSON.stringify(p);
      if (r.text.indexOf(r.type) === 0) r.text = r.text.slice(r.type.length).trim() || r.type;
      r.err = r.type === '[SEND_ERROR]';
      r.retry = r.type === '[RETRY]';
    }
    r.text = oneLine(cut(r.text, 400));
  });

  function describe(p) {
    var s = (p.kind || '?') + '/' + (p.phase || '?');
    if (p.tool) return s + ' ' + (p.tool.name || '') + ' ' + (p.tool.summary || '');
    if (p.toolResult) return s + ' ' + (p.toolResult.isError ? 'error ' : 'ok ') + (p.toolResult.outputBytes || 0) + ' bytes ' + JSON.stringify(p.toolResult.output || '');
    if (p.error) return s + ' ' + (p.error.fatal ? 'fatal ' : '') + (p.error.type ? p.error.type + ': ' : '') + (p.error.message || '');
    if (p.retry) return s + ' attempt ' + p.retry.attempt + (p.retry.status ? ' (' + p.retry.status + ')' : '') + (p.retry.error ? ' ' + p.retry.error : '');
    if (p.result) return s + ' ' + (p.result.subtype || '') + (p.result.isError ? ' (error)' : '') + (p.result.text ? ' ' + JSON.stringify(p.result.text) : '');
    if (p.usage) return s + ' in=' + p.usage.inputTokens + ' out=' + p.usage.outputTokens;
    if (p.text) return s + ' ' + JSON.stringify(p.text);
    if (p.kind === 'init') return s + ' ' + [p.model, p.version].filter(Boolean).join(' ');
    return s + ' ' + [p.status, p.nativeType].filter(Boolean).join(' ');
  }

  // nativeText finds the words a person would look for in a provider line.
  function nativeText(p) {
    if (!isObj(p)) return JSON.stringify(p);
    var e = isObj(p.event) ? p.event : null;
    var d = e && isObj(e.delta) ? e.delta : null;
    var bits = [];
    if (d) bits.push(d.text || d.thinking || d.partial_json || d.type || '');
    else if (e) bits.push(e.type || '');
    if (typeof p.delta === 'string') bits.push(p.delta);
    if (isObj(p.item)) bits.push(p.item.type + ' ' + (p.item.text || p.item.command || ''));
    if (isObj(p.part)) bits.push(p.part.type + ' ' + (p.part.text || p.part.tool || ''));
    if (isObj(p.properties)) bits.push(JSON.stringify(p.properties));
    if (typeof p.content === 'string') bits.push(p.content);
    if (typeof p.message === 'string') bits.push(p.message);
    if (isObj(p.error)) bits.push(p.error.message || JSON.stringify(p.error));
    if (typeof p.result === 'string') bits.push(p.result);
    var s = bits.filter(Boolean).join(' ');
    if (s) return s;
    // Otherwise the line's plain top-level values, ids and types left out.
    var kv = [];
    Object.keys(p).forEach(function (k) {
      var v = p[k];
      if (k === 'type' || k === 'subtype' || /(^|_)(uuid|id|session_id)$|Id$/.test(k)) return;
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') kv.push(k + '=' + v);
    });
    return kv.length ? kv.join(' ') : JSON.stringify(p);
  }

  tools.forEach(function (tc) {
    if (tc.result && tc.first.t !== null && tc.result.t !== null) tc.duration = tc.result.t - tc.first.t;
  });

  // ---- header --------------------------------------------------------
  var facts = $('facts');
  function fact(label, value, cls) {
    var s = el('span', cls);
    s.appendChild(document.createTextNode(label + ' '));
    s.appendChild(el('b', '', value));
    facts.appendChild(s);
  }
  var counts = {};
  recs.forEach(function (r) { counts[r.stage] = (counts[r.stage] || 0) + 1; });
  if (start) {
    fact('provider', start.provider || '?');
    if (start.cliName || start.cliVersion) fact('agent', [start.cliName, start.cliVersion].filter(Boolean).join(' '));
    if (start.os) fact('os', start.os + (start.arch ? '/' + start.arch : ''));
  }
  if (end) fact('end', end.exitCode === null || end.exitCode === undefined ? 'no exit status' : 'exit ' + end.exitCode, end.exitCode ? 'bad' : '');
  else fact('end', 'no capture.end', 'bad');
  fact('records', String(recs.length));
  LANES.forEach(function (l) { if (counts[l]) fact(l, String(counts[l])); });
  var problems = recs.filter(function (r) { return r.err || r.retry; });
  var errs = recs.filter(function (r) { return r.err; });
  // The header counts problems once: in normalized_out when the capture
  // has it (a native line, its event and its marker are one error).
  var counted = counts.normalized_out ? problems.filter(function (r) { return r.stage === 'normalized_out'; }) : problems;
  var nErr = counted.filter(function (r) { return r.err; }).length;
  fact('errors', String(nErr), nErr ? 'bad' : '');
  fact('retries', String(counted.filter(function (r) { return r.retry; }).length));
  if (errs.length) {
    var fb = el('button', '', 'first error #' + errs[0].seq);
    fb.id = 'first-error';
    fb.addEventListener('click', function () { select(errs[0].i, true); });
    facts.appendChild(fb);
  }
  if (data.truncated) fact('note', data.truncated + ' large payload(s) shortened');

  // ---- filters -------------------------------------------------------
  var stagesShown = {};
  var stageNames = LANES.concat(['meta']);
  recs.forEach(function (r) { if (stageNames.indexOf(r.stage) < 0) stageNames.push(r.stage); });
  stageNames.forEach(function (s) {
    stagesShown[s] = true;
    var lab = el('label');
    var cb = el('input');
    cb.type = 'checkbox'; cb.checked = true; cb.value = s; cb.id = 'stage-' + s;
    cb.addEventListener('change', function () {
      stagesShown[s] = cb.checked;
      var head = document.querySelector('.lane-name[data-lane="' + s + '"]');
      if (head) head.classList.toggle('off', !cb.checked);
      refilter();
    });
    lab.appendChild(cb);
    lab.appendChild(document.createTextNode(s + ' (' + (counts[s] || 0) + ')'));
    $('stages').appendChild(lab);
  });
  var kindSel = $('kind');
  stageNames.forEach(function (s) {
    var kinds = {};
    recs.forEach(function (r) { if (r.stage === s) kinds[r.kind] = (kinds[r.kind] || 0) + 1; });
    var names = Object.keys(kinds).sort();
    if (!names.length) return;
    var g = el('optgroup'); g.label = s;
    names.forEach(function (k) {
      var o = el('option', '', k + ' (' + kinds[k] + ')');
      o.value = s + '\u0000' + k;
      g.appendChild(o);
    });
    kindSel.appendChild(g);
  });
  kindSel.addEventListener('change', refilter);
  $('problems').addEventListener('change', refilter);
  $('chunks').addEventListener('change', function () { showDetail(); });
  var search = $('search'), query = '', searchTimer = 0;
  search.addEventListener('input', function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () { query = search.value.trim().toLowerCase(); refilter(); }, 120);
  });

  function hay(r) {
    if (r.hay === undefined) {
      var raw = typeof r.p === 'string' ? r.p : JSON.stringify(r.p);
      r.hay = (r.seq + ' ' + r.stage + ' ' + r.type + ' ' + r.text + ' ' + cut(raw, MAX_HAY)).toLowerCase();
    }
    return r.hay;
  }

  var view = [], pos = new Map(), sel = -1;
  function refilter() {
    var kv = kindSel.value, ks = null, kk = null;
    if (kv) { var parts = kv.split('\u0000'); ks = parts[0]; kk = parts[1]; }
    var probOnly = $('problems').checked;
    view = [];
    pos = new Map();
    for (var i = 0; i < recs.length; i++) {
      var r = recs[i];
      if (!stagesShown[r.stage]) continue;
      if (ks !== null && (r.stage !== ks || r.kind !== kk)) continue;
      if (probOnly && !r.err && !r.retry) continue;
      if (query && hay(r).indexOf(query) < 0) continue;
      pos.set(r.i, view.length);
      view.push(r.i);
    }
    $('spacer').style.height = (view.length * ROW) + 'px';
    $('status').textContent = view.length + ' of ' + recs.length + ' records' + (query ? ' match “' + cut(query, 40) + '”' : '');
    if (sel >= 0 && !pos.has(sel)) sel = -1;
    if (sel >= 0) scrollToRow(pos.get(sel)); else render();
    showDetail();
  }

  // ---- virtual list --------------------------------------------------
  var vp = $('viewport'), rowsEl = $('rows'), svg = $('links'), pending = false;
  vp.addEventListener('scroll', function () {
    if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; render(); }); }
  });
  window.addEventListener('resize', function () { render(); });

  function related() {
    var s = sel >= 0 ? recs[sel] : null;
    return { causes: new Set(s ? s.cause : []), effects: new Set(s ? s.effects : []) };
  }

  function render() {
    var h = vp.clientHeight, top = vp.scrollTop;
    var first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    var last = Math.min(view.length, Math.ceil((top + h) / ROW) + OVERSCAN);
    var rel = related();
    var frag = document.createDocumentFragment();
    for (var v = first; v < last; v++) frag.appendChild(rowEl(recs[view[v]], v, rel));
    rowsEl.replaceChildren(frag);
    drawLinks(rel);
  }

  function rowEl(r, v, rel) {
    var row = el('div', 'row stage-' + (LANES.indexOf(r.stage) >= 0 || r.stage === 'meta' ? r.stage : 'other'));
    row.style.top = (v * ROW) + 'px';
    row.dataset.seq = r.seq;
    row.dataset.stage = r.stage;
    row.dataset.kind = r.kind;
    if (r.err) row.classList.add('err');
    if (r.retry) row.classList.add('retry');
    if (r.i === sel) row.classList.add('selected');
    if (rel.causes.has(r.seq)) row.classList.add('cause');
    if (rel.effects.has(r.seq)) row.classList.add('effect');
    if (query && hay(r).indexOf(query) >= 0) row.classList.add('match');
    var g = el('div', 'g');
    g.appendChild(el('span', 'seq', '#' + r.seq));
    g.appendChild(document.createTextNode(' ' + fmtT(r.t)));
    row.appendChild(g);
    var card = el('div', 'card');
    if (r.toolCall && r.kind === 'tool') {
      card.classList.add('tool');
      var tc = r.toolCall;
      card.appendChild(el('span', 'ty', '⚙ ' + (tc.name || 'tool')));
      card.appendChild(el('span', 'txt', oneLine(tc.summary || r.phase)));
      card.appendChild(el('span', 'badge ' + tc.status, tc.status));
      if (tc.duration !== undefined) card.appendChild(el('span', 'badge dur', fmtDur(tc.duration)));
    } else {
      card.appendChild(el('span', 'ty', r.stage === 'normalized_out' ? r.kind + (r.phase ? '/' + r.phase : '') : r.type));
      var t = r.text;
      if (r.stage === 'normalized_out') t = t.slice(t.indexOf(' ') + 1);
      else if (t === r.type) t = '';
      card.appendChild(el('span', 'txt', t));
      if (r.toolCall && r.kind === 'tool_result' && r.toolCall.duration !== undefined) card.appendChild(el('span', 'badge dur', fmtDur(r.toolCall.duration)));
    }
    if (r.cause.length) card.appendChild(el('span', 'chip', '←' + (r.cause.length === 1 ? r.cause[0] : r.cause[0] + '…' + r.cause[r.cause.length - 1])));
    card.title = r.text;
    row.appendChild(card);
    row.addEventListener('click', function () { select(r.i, false); });
    return row;
  }

  // drawLinks joins the selected row to its causes (or effects) with
  // curves; ends outside the viewport are drawn to its edge.
  function drawLinks(rel) {
    svg.replaceChildren();
    if (sel < 0 || !pos.has(sel)) return;
    var s = recs[sel], others = s.cause.length ? s.cause : s.effects;
    if (!others.length) return;
    var top = vp.scrollTop, h = vp.clientHeight;
    svg.style.top = top + 'px';
    svg.setAttribute('height', h);
    svg.setAttribute('width', vp.clientWidth);
    var vpLeft = vp.getBoundingClientRect().left;
    function laneX(stage, side) {
      var head = document.querySelector('.lane-name[data-lane="' + stage + '"]');
      if (!head) return 0;
      var b = head.getBoundingClientRect();
      return (side === 'right' ? b.right - 8 : b.left + 8) - vpLeft;
    }
    var sy = pos.get(sel) * ROW + ROW / 2 - top;
    var ns = 'http://www.w3.org/2000/svg';
    others.forEach(function (q) {
      var o = bySeq.get(q);
      if (!o || !pos.has(o.i)) return;
      var oy = pos.get(o.i) * ROW + ROW / 2 - top;
      oy = Math.max(2, Math.min(h - 2, oy));
      var leftFirst = LANES.indexOf(o.stage) < LANES.indexOf(s.stage);
      var x1 = leftFirst ? laneX(s.stage, 'left') : laneX(s.stage, 'right');
      var x2 = leftFirst ? laneX(o.stage, 'right') : laneX(o.stage, 'left');
      var mx = (x1 + x2) / 2;
      var path = document.createElementNS(ns, 'path');
      path.setAttribute('d', 'M' + x1 + ',' + sy + ' C' + mx + ',' + sy + ' ' + mx + ',' + oy + ' ' + x2 + ',' + oy);
      path.setAttribute('data-from', s.seq);
      path.setAttribute('data-to', q);
      svg.appendChild(path);
      var dot = document.createElementNS(ns, 'circle');
      dot.setAttribute('cx', x2); dot.setAttribute('cy', oy); dot.setAttribute('r', 3);
      svg.appendChild(dot);
    });
  }

  function scrollToRow(v) {
    var top = v * ROW, h = vp.clientHeight;
    if (top < vp.scrollTop) vp.scrollTop = top;
    else if (top + ROW > vp.scrollTop + h) vp.scrollTop = top + ROW - h;
    render();
  }

  function select(i, center) {
    if (!pos.has(i)) {
      // The target is filtered out: show everything again to reach it.
      stageNames.forEach(function (s) { stagesShown[s] = true; $('stage-' + s).checked = true; });
      document.querySelectorAll('.lane-name').forEach(function (n) { n.classList.remove('off'); });
      kindSel.value = ''; $('problems').checked = false; search.value = ''; query = '';
      sel = i;
      refilter();
    }
    sel = i;
    var v = pos.get(i);
    if (center) vp.scrollTop = Math.max(0, v * ROW - vp.clientHeight / 2);
    scrollToRow(v);
    showDetail();
  }

  // ---- detail --------------------------------------------------------
  function jumpButton(q, prefix) {
    var o = bySeq.get(q);
    var b = el('button', '', prefix + '#' + q + (o ? ' ' + o.stage + ' ' + cut(o.type, 40) : ''));
    b.dataset.jump = q;
    b.addEventListener('click', function () { if (o) select(o.i, true); });
    return b;
  }

  function showDetail() {
    var d = $('detail');
    d.replaceChildren();
    if (sel < 0) { d.appendChild(el('p', 'hint', 'Select a row (click, or j/k) to see its payload, its cause links and, for text, the reassembled block.')); return; }
    var r = recs[sel];
    d.appendChild(el('h2', '', '#' + r.seq + '  ' + r.stage + '  ' + r.type));
    d.appendChild(el('div', 'hint', fmtT(r.t) + (r.err ? ' · error' : '') + (r.retry ? ' · retry' : '')));
    if (r.cause.length) {
      d.appendChild(el('h3', '', 'caused by (native lines)'));
      var cl = el('div', 'links-list');
      r.cause.forEach(function (q) { cl.appendChild(jumpButton(q, '← ')); });
      d.appendChild(cl);
    }
    if (r.effects.length) {
      d.appendChild(el('h3', '', 'produced'));
      var el2 = el('div', 'links-list');
      r.effects.forEach(function (q) { el2.appendChild(jumpButton(q, '→ ')); });
      d.appendChild(el2);
    }
    if (r.toolCall) {
      var tc = r.toolCall;
      d.appendChild(el('h3', '', 'tool call'));
      var dl = el('dl', 'toolcard');
      [['name', tc.name], ['summary', tc.summary], ['id', tc.id], ['status', tc.status],
        ['duration', tc.duration === undefined ? '' : fmtDur(tc.duration)],
        ['started', '#' + tc.first.seq], ['result', tc.result ? '#' + tc.result.seq : 'none']].forEach(function (kv) {
        dl.appendChild(el('dt', '', kv[0])); dl.appendChild(el('dd', '', kv[1]));
      });
      d.appendChild(dl);
    }
    if (r.block) {
      var b = r.block;
      d.appendChild(el('h3', '', b.kind + ' block: ' + b.chunks.length + ' chunk(s)' + (b.done ? ', completed at #' + b.fullSeq : ', not completed')));
      var box = el('div', 'block' + ($('chunks').checked ? ' show-chunks' : ''));
      box.id = 'block';
      if (b.chunks.length) {
        b.chunks.forEach(function (c) {
          var sp = el('span', 'chunk' + (c.seq === r.seq ? ' current' : ''), c.text);
          sp.title = '#' + c.seq;
          box.appendChild(sp);
        });
      } else box.appendChild(el('span', 'chunk', b.full || ''));
      d.appendChild(box);
      if (b.done && b.chunks.length && b.full !== b.chunks.map(function (c) { return c.text; }).join('')) {
        d.appendChild(el('p', 'hint bad', 'The deltas do not add up to the completed text.'));
      }
    }
    d.appendChild(el('h3', '', 'payload'));
    var raw = typeof r.p === 'string' ? r.p : JSON.stringify(r.p, null, 2);
    d.appendChild(el('pre', '', cut(raw, MAX_PRE)));
  }

  // ---- keyboard ------------------------------------------------------
  function move(delta) {
    if (!view.length) return;
    var v = sel >= 0 && pos.has(sel) ? pos.get(sel) + delta : (delta > 0 ? 0 : view.length - 1);
    v = Math.max(0, Math.min(view.length - 1, v));
    select(view[v], false);
  }
  function nextProblem(dir) {
    if (!problems.length) return;
    var from = sel >= 0 ? sel : (dir > 0 ? -1 : recs.length);
    var list = dir > 0 ? problems : problems.slice().reverse();
    var hit = list.find(function (r) { return dir > 0 ? r.i > from : r.i < from; }) || list[0];
    select(hit.i, true);
  }
  document.addEventListener('keydown', function (e) {
    if (e.target === search || e.target.tagName === 'SELECT') {
      if (e.key === 'Escape') { search.blur(); vp.focus(); }
      if (e.key === 'Enter' && e.target === search) {
        clearTimeout(searchTimer); query = search.value.trim().toLowerCase(); refilter(); vp.focus();
      }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var pageRows = Math.max(1, Math.floor(vp.clientHeight / ROW) - 1);
    switch (e.key) {
      case 'j': case 'ArrowDown': move(1); break;
      case 'k': case 'ArrowUp': move(-1); break;
      case 'PageDown': move(pageRows); break;
      case 'PageUp': move(-pageRows); break;
      case 'g': case 'Home': if (view.length) select(view[0], false); break;
      case 'G': case 'End': if (view.length) select(view[view.length - 1], false); break;
      case 'n': nextProblem(1); break;
      case 'N': nextProblem(-1); break;
      case 'Enter': case 'c':
        if (sel >= 0) { var r = recs[sel], q = r.cause[0] !== undefined ? r.cause[0] : r.effects[0]; if (q !== undefined && bySeq.has(q)) select(bySeq.get(q).i, true); }
        break;
      case '/': search.focus(); search.select(); break;
      case 'Escape': sel = -1; render(); showDetail(); break;
      default: return;
    }
    e.preventDefault();
  });

  refilter();
  document.body.dataset.ready = 'true';
})();
