// A client of the official agent SDKs, for record's TestSDKRealCLI: it runs
// one session and prints every message the SDK hands it as one JSON line on
// stdout, then exits. It knows nothing of evcap: the test points it at a
// CLI (the real one through evcap shim, or evcap play standing in for it).
//
//   node client.mjs claude|codex|plain
//
// Environment: EVCAP_SDK_DIR (where .ci/setup-sdks.sh installed the SDKs),
// CLIENT_CLI (the executable to run), CLIENT_PROMPT, CLIENT_CWD.
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const mode = process.argv[2];
const sdkDir = process.env.EVCAP_SDK_DIR;
const cli = process.env.CLIENT_CLI;
const prompt = process.env.CLIENT_PROMPT;
const cwd = process.env.CLIENT_CWD;
const emit = (kind, v) => process.stdout.write(JSON.stringify({ kind, v }) + '\n');

async function claude() {
  const sdk = await import(pathToFileURL(path.join(sdkDir, 'node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs')).href);
  let finish;
  const finished = new Promise((resolve) => { finish = resolve; });
  // Streaming input: one user message, and the input stays open until the
  // result came, as an interactive integration keeps it.
  async function* input() {
    yield { type: 'user', message: { role: 'user', content: prompt }, parent_tool_use_id: null, session_id: '' };
    await finished;
  }
  const q = sdk.query({
    prompt: input(),
    options: {
      pathToClaudeCodeExecutable: cli,
      cwd,
      model: 'claude-sonnet-4-5-20250929',
      env: process.env,
      stderr: (s) => process.stderr.write(s),
      canUseTool: async (toolName, toolInput) => {
        emit('canUseTool', { toolName });
        return { behavior: 'allow', updatedInput: toolInput };
      },
    },
  });
  for await (const m of q) {
    emit('message', m);
    if (m.type === 'result') finish();
  }
}

async function codex() {
  const { Codex } = await import(pathToFileURL(path.join(sdkDir, 'node_modules/@openai/codex-sdk/dist/index.js')).href);
  const c = new Codex({ codexPathOverride: cli, env: { ...process.env } });
  const thread = c.startThread({ skipGitRepoCheck: true, workingDirectory: cwd, sandboxMode: 'danger-full-access', approvalPolicy: 'never' });
  const { events } = await thread.runStreamed(prompt);
  for await (const ev of events) emit('event', ev);
}

// plain is a program written without evcap in mind: it runs claude from
// PATH headless and passes its output and exit status on.
function plain() {
  const child = spawn('claude', ['-p', prompt, '--output-format', 'stream-json', '--verbose',
    '--model', 'claude-sonnet-4-5-20250929', '--allowedTools', 'Bash,Read'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(process.stdout);
  child.stderr.pipe(process.stderr);
  child.on('close', (code, signal) => {
    process.exitCode = code ?? 1;
    if (signal) process.stderr.write(`claude died by ${signal}\n`);
  });
}

const modes = { claude, codex, plain };
if (!modes[mode]) {
  process.stderr.write(`usage: node client.mjs ${Object.keys(modes).join('|')}\n`);
  process.exit(2);
}
await modes[mode]();
