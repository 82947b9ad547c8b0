// Package fakemodel is a scripted model server for driving the real agent
// CLIs (Claude Code, codex, opencode, Gemini CLI) offline, on 127.0.0.1,
// in end-to-end tests.
//
// A Scenario (a JSON file, see testdata/) says turn by turn what the model
// thinks, says (streamed in deltas of given sizes) and which tools it calls,
// and which HTTP errors come first. The Server answers it over the four wire
// protocols the CLIs speak:
//
//	POST /v1/messages[?beta=true]                        Anthropic Messages SSE (Claude Code)
//	POST /v1/responses                                   OpenAI Responses SSE (codex)
//	POST /v1/chat/completions                            OpenAI Chat Completions SSE (opencode via @ai-sdk/openai-compatible)
//	POST /v1beta/models/M:streamGenerateContent?alt=sse  Gemini (Gemini CLI); :generateContent answers whole
//
// Tool calls are written as intents ({"shell": "ls"}, {"read": "README.md"},
// {"write": {...}}); the server maps each onto the tool the requesting CLI
// declared in its request (Bash/Read for Claude Code, exec_command or shell
// for codex, bash/read for opencode, run_shell_command/read_file for Gemini
// CLI) with the argument names of that tool's schema. Relative paths are
// made absolute with the working directory the CLI states in its prompt.
//
// Which turn answers a request is decided by counting the tool results the
// request carries, so retries and side requests do not shift the script. A
// request that declares no tools is a side request (opencode's title
// generation) and gets the scenario's title as its answer. Scripted errors
// go to the first main requests; a fatal error goes to every request.
//
// Everything the server writes is deterministic: ids come from the request
// number, timestamps are constants. It does not imitate a model: it does not
// read prompts, check API keys, count real tokens or validate requests beyond
// what it needs to pick and shape the answer. Cli.go holds the environment,
// config files and flags that point each CLI at the server.
package fakemodel
