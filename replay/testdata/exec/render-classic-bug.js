// render-classic-bug.js: render.js with the classic stream bug: it takes
// every 'data' chunk of stdin to hold whole lines. It passes whole-stream
// and line-by-line feeding and breaks when a line is split across reads
// (JSON.parse throws on the torn halves and the process exits 1).
'use strict';

function firstText(v, depth) {
  if (depth > 6 || v === null || typeof v !== 'object') return '';
  for (const k of ['text', 'delta', 'content', 'thinking', 'message', 'result']) {
    if (typeof v[k] === 'string' && v[k] !== '') return v[k];
  }
  for (const k of Object.keys(v)) {
    const t = firstText(v[k], depth + 1);
    if (t !== '') return t;
  }
  return '';
}

function print(v) {
  const type = [v.type, v.subtype || (v.event && v.event.type) || (v.item && v.item.type) || v.role]
    .filter(Boolean).join('/');
  const text = firstText(v, 0).replace(/\s+/g, ' ').slice(0, 60);
  process.stdout.write(type + ': ' + text + '\n');
}

process.stdin.on('data', c => c.toString().split('\n').filter(l => l).map(JSON.parse).forEach(print));
