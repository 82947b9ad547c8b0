// render.js: a small chat-bridge renderer of agent CLI stream lines
// (Claude, Codex, Gemini and opencode JSON lines alike), written the way an
// integrator would: one output line per input line, "TYPE: TEXT", where
// TYPE is the line's type and TEXT the first text it carries. It reads
// whole lines however its stdin is split (readline buffers partial lines).
'use strict';
const readline = require('readline');

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

function render(line) {
  if (line === '') return;
  let v;
  try {
    v = JSON.parse(line);
  } catch (e) {
    process.stdout.write('non-json: ' + line.slice(0, 60) + '\n');
    return;
  }
  const type = [v.type, v.subtype || (v.event && v.event.type) || (v.item && v.item.type) || v.role]
    .filter(Boolean).join('/');
  const text = firstText(v, 0).replace(/\s+/g, ' ').slice(0, 60);
  process.stdout.write(type + ': ' + text + '\n');
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', render);
