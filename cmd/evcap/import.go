package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/evcap/evcap/history"
	"github.com/evcap/evcap/redact"
	"github.com/spf13/cobra"
)

// importOptions are the flags of evcap import.
type importOptions struct {
	provider string
	session  string
	out      string
}

func newImportCmd(s streams) *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "import [--provider P] [--session ID] [PATH|URL] -o OUT",
		Short: "Turn a CLI's stored session into a capture (restored-history reproduction)",
		Long: `Import reads a session an agent CLI stored for itself and writes it as a
capture: every stored entry a native_in record (source "history") in stored
order with its stored timestamp, followed by the normalized events the
provider's history normalizer derives from it, redacted like a recording.

PATH is a stored session file (Claude Code, Codex, Gemini CLI JSONL; a FIFO,
or - for standard input, works too: it is read once) or an opencode database
(a file); URL is a running opencode server. Without PATH,
--provider and --session find the session where the CLI keeps it:
  claude    $CLAUDE_CONFIG_DIR (~/.claude)/projects/<slug>/<ID>.jsonl
  codex     $CODEX_HOME (~/.codex)/sessions/YYYY/MM/DD/rollout-*-<ID>.jsonl
  gemini    ~/.gemini/tmp/<project>/chats/session-*.jsonl (by its sessionId)
  opencode  $XDG_DATA_HOME (~/.local/share)/opencode/opencode.db
For opencode, --session picks the session (default: the latest updated).
The CLI's files are only read; the database is opened read-only.`,
		Example: `  evcap import ~/.claude/projects/-home-me-proj/6c66e7d7-….jsonl -o restored.jsonl
  evcap import --provider codex --session 01a230d5 -o restored.jsonl
  evcap import --provider opencode --session ses_dcf2… -o restored.jsonl
  evcap import http://127.0.0.1:4096 --session ses_dcf2… -o restored.jsonl
  evcap replay --against live.jsonl restored.jsonl`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd, s, o, args)
		},
	}
	cmd.Flags().StringVar(&o.provider, "provider", "", "the CLI that stored the session: claude, codex, gemini, opencode (default: from PATH)")
	cmd.Flags().StringVar(&o.session, "session", "", "session id (a unique prefix will do for claude, codex and gemini)")
	cmd.Flags().StringVarP(&o.out, "output", "o", "", "capture file to write (required)")
	return cmd
}

func runImport(cmd *cobra.Command, s streams, o importOptions, args []string) error {
	if o.out == "" {
		return &exitError{code: 2, err: fmt.Errorf("import: -o OUT is required")}
	}
	t := history.Target{Provider: o.provider, Session: o.session, Env: history.Env{Getenv: os.Getenv}, Stdin: s.in}
	t.Env.Home, _ = os.UserHomeDir()
	if len(args) == 1 {
		t.Path = args[0]
	}
	op, err := history.Open(cmd.Context(), t)
	if err != nil {
		return err
	}
	defer op.Entries.Close()
	if same(op.Origin, o.out) {
		return fmt.Errorf("import: -o %s is the stored session itself", o.out)
	}
	// Written through a temporary file and renamed, so a failed or
	// interrupted import leaves no half capture at OUT.
	var st history.Stats
	err = writeFileAtomically(o.out, 0o600, func(w io.Writer) error {
		var err error
		st, err = history.Import(cmd.Context(), op.Entries, w, history.Options{Provider: op.Provider,
			RedactorFor: importRedactor, EvcapVersion: version, Origin: op.Origin})
		return err
	})
	if err != nil {
		return err
	}
	torn := ""
	if st.Torn {
		torn = " (the last one unfinished)"
	}
	fmt.Fprintf(s.err, "evcap: imported %d %s entries%s into %d records (%d events, %d unknown, %d redactions) to %s\n",
		st.Entries, op.Provider, torn, st.Records, st.Normalized, st.Unknown, st.Redacted, o.out)
	return nil
}

// same reports whether two paths name the same existing file.
func same(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	if err != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(sa, sb)
}

// importRedactor is the default redaction of evcap record, with the
// directory the stored session ran in as the project (this directory when
// the session names none).
func importRedactor(sessionCwd string) (*redact.Redactor, error) {
	cfg, err := redact.LoadConfig(".evcap.toml")
	if err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	project := sessionCwd
	if project == "" {
		project, _ = os.Getwd()
	}
	return redact.New(redact.Options{Home: home, Project: project, Temp: []string{os.TempDir()}, Config: cfg})
}
