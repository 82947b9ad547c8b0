package fakemodel

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CLI names an agent CLI that can be pointed at the server.
type CLI string

// The CLIs, named after their executables.
const (
	ClaudeCode CLI = "claude"
	Codex      CLI = "codex"
	OpenCode   CLI = "opencode"
	GeminiCLI  CLI = "gemini"
)

// CLIs lists every supported CLI.
func CLIs() []CLI { return []CLI{ClaudeCode, Codex, OpenCode, GeminiCLI} }

// NPMPackage is the npm package that ships the CLI.
func (c CLI) NPMPackage() string {
	switch c {
	case ClaudeCode:
		return "@anthropic-ai/claude-code"
	case Codex:
		return "@openai/codex"
	case OpenCode:
		return "opencode-ai"
	case GeminiCLI:
		return "@google/gemini-cli"
	}
	return ""
}

// Protocol is the wire protocol the CLI speaks to the server.
func (c CLI) Protocol() Protocol {
	switch c {
	case ClaudeCode:
		return Anthropic
	case Codex:
		return OpenAIResponses
	case OpenCode:
		return OpenAIChat
	case GeminiCLI:
		return Gemini
	}
	return ""
}

// ErrCLINotFound is returned by LookCLI when the executable is nowhere.
var ErrCLINotFound = errors.New("agent CLI not found")

// LookCLI finds the CLI's executable: first in cliDir/node_modules/.bin
// (where .ci/install-clis.sh puts it; skipped when cliDir is empty), then
// on PATH.
func LookCLI(c CLI, cliDir string) (string, error) {
	if cliDir != "" {
		p := filepath.Join(cliDir, "node_modules", ".bin", string(c))
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath(string(c))
	if err != nil {
		return "", fmt.Errorf("%w: %s (npm package %s; install it with .ci/install-clis.sh DIR and set EVCAP_CLI_DIR=DIR)", ErrCLINotFound, c, c.NPMPackage())
	}
	return p, nil
}

// Prepare writes the configuration files that point the CLI at the server
// at baseURL (e.g. "http://127.0.0.1:PORT") into home, a fresh directory
// used as the CLI's HOME, and returns the environment variables to run it
// with (HOME and TMPDIR included; PATH is the caller's, and node must be on
// it for the Gemini CLI). Every CLI is kept from phoning home: telemetry,
// update checks and error reporting are off.
//
// Claude Code retries failed requests itself, 401 included, up to ten times
// with minutes of backoff; add CLAUDE_CODE_MAX_RETRIES=N to the returned
// environment to shorten that.
func Prepare(c CLI, baseURL, home string) ([]string, error) {
	tmp := filepath.Join(home, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("prepare %s home: %w", c, err)
	}
	env := []string{"HOME=" + home, "TMPDIR=" + tmp}
	write := func(rel, content string) error {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("prepare %s config: %w", c, err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return fmt.Errorf("prepare %s config: %w", c, err)
		}
		return nil
	}
	switch c {
	case ClaudeCode:
		env = append(env,
			"ANTHROPIC_BASE_URL="+baseURL,
			"ANTHROPIC_API_KEY=dummy",
			"CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"CLAUDE_CODE_ENABLE_TELEMETRY=0",
			"DISABLE_TELEMETRY=1",
			"DISABLE_AUTOUPDATER=1",
			"DISABLE_ERROR_REPORTING=1",
			"DISABLE_BUG_COMMAND=1",
		)
	case Codex:
		// A model slug codex knows (gpt-5.5) gets its full tool set
		// (exec_command, apply_patch); the retry counts keep a failing run short.
		cfg := `model = "gpt-5.5"
model_provider = "fake"
model_reasoning_summary = "detailed"

[model_providers.fake]
name = "fake"
base_url = "` + baseURL + `/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
request_max_retries = 3
stream_max_retries = 2
stream_idle_timeout_ms = 60000
`
		if err := write(".codex/config.toml", cfg); err != nil {
			return nil, err
		}
		env = append(env, "CODEX_HOME="+filepath.Join(home, ".codex"), "FAKE_API_KEY=dummy", "RUST_LOG=warn")
	case OpenCode:
		cfg := `{
  "$schema": "https://opencode.ai/config.json",
  "model": "fake/fake-model",
  "small_model": "fake/fake-model",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Fake",
      "options": {"baseURL": "` + baseURL + `/v1", "apiKey": "dummy"},
      "models": {
        "fake-model": {"name": "Fake Model", "reasoning": true, "tool_call": true, "limit": {"context": 200000, "output": 32000}}
      }
    }
  },
  "permission": {"edit": "allow", "bash": "allow", "webfetch": "deny", "external_directory": "allow"}
}
`
		if err := write("opencode.json", cfg); err != nil {
			return nil, err
		}
		env = append(env,
			"OPENCODE_CONFIG="+filepath.Join(home, "opencode.json"),
			"OPENCODE_DISABLE_AUTOUPDATE=1",
			"OPENCODE_DISABLE_MODELS_FETCH=1",
			"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
			"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
			"OPENCODE_DISABLE_SHARE=1",
			"OPENCODE_DISABLE_CLAUDE_CODE=1",
			"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
			"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
			"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
			"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		)
	case GeminiCLI:
		cfg := `{
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "ide": {"enabled": false}
}
`
		if err := write(".gemini/settings.json", cfg); err != nil {
			return nil, err
		}
		env = append(env,
			"GEMINI_API_KEY=dummy",
			"GOOGLE_GEMINI_BASE_URL="+baseURL,
			"GEMINI_CLI_NO_RELAUNCH=true",
			"GEMINI_TELEMETRY_ENABLED=false",
		)
	default:
		return nil, fmt.Errorf("prepare: unknown CLI %q", c)
	}
	return env, nil
}

// HeadlessArgs are the arguments for a one-shot run of prompt in project
// that prints machine-readable JSON lines on stdout, as recorded in the
// corpus. Run the command with project as its working directory.
func HeadlessArgs(c CLI, project, prompt string) []string {
	switch c {
	case ClaudeCode:
		return []string{"-p", prompt, "--output-format", "stream-json", "--verbose",
			"--model", "claude-sonnet-4-5-20250929", "--allowedTools", "Bash,Read,Write,Edit"}
	case Codex:
		return []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "-C", project, prompt}
	case OpenCode:
		return []string{"run", "--format", "json", "--thinking", "-m", "fake/fake-model", prompt}
	case GeminiCLI:
		return []string{"-p", prompt, "--output-format", "stream-json", "--yolo", "-m", "gemini-2.5-pro"}
	}
	return nil
}

// PathWithNode returns path with the directory of cliBin prepended, so that
// npm's .bin shims and node itself resolve the same way they did at install.
func PathWithNode(cliBin, path string) string {
	dir := filepath.Dir(cliBin)
	if path == "" {
		return dir
	}
	if strings.HasPrefix(path, dir+string(os.PathListSeparator)) {
		return path
	}
	return dir + string(os.PathListSeparator) + path
}
