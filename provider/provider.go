// Package provider defines the descriptor of one agent CLI: everything the
// rest of evcap needs to know about a provider's wire format, given by the
// one package that knows it (normalize/<provider>). A Descriptor names the
// provider, judges its stdout lines (detection), makes its stream and
// history normalizers, follows its streamed delta blocks, lists the JSON
// keys of its per-run ids, and says which flags make its CLI print JSON and
// where the CLI stores its sessions.
//
// The package holds types only: no descriptor and no table of providers
// (package providers is the registry). It knows no provider's format.
package provider

import (
	"time"

	"github.com/evcap/evcap/event"
)

// Descriptor describes one agent CLI. Every func field except History,
// DetectHistory, HistoryTime and Input is set, and Server may be nil; each
// call of a constructor field returns a fresh value, so a Descriptor may
// be copied and shared freely.
type Descriptor struct {
	// Name is the provider's name in capture envelopes, --provider flags
	// and fixtures ("claude").
	Name string
	// CLI is the name of the provider's executable ("claude").
	CLI string
	// NPMPackage is the npm package the CLI is installed from
	// ("@anthropic-ai/claude-code"); a platform package of it (its native
	// binary) starts with this name and "-". Used to read the installed
	// CLI's version.
	NPMPackage string
	// System is gen_ai.provider.name for OpenTelemetry export: the model
	// vendor where the CLI has one, else the CLI's own name.
	System string

	// Detect judges one native stdout line on its own (without its
	// newline; surrounding space is allowed): the format the line is in
	// and true when only this provider prints such a line. Blank lines,
	// SSE framing lines and lines of other providers give false.
	Detect func(line []byte) (format string, ok bool)
	// Normalizer returns a fresh stream normalizer for one stream.
	Normalizer func(Options) event.Normalizer
	// History returns a fresh normalizer for the provider's stored-session
	// lines (evcap import); nil when the provider has none.
	History func() event.Normalizer
	// DetectHistory reports whether one line of a stored session (a JSONL
	// file the CLI keeps, or one row exported from its database) has a
	// shape only this provider stores; nil when History is nil.
	DetectHistory func(line []byte) bool
	// HistoryTime is the time the CLI stored with one stored-session line
	// (UTC; zero when the line has none); nil when History is nil.
	HistoryTime func(line []byte) time.Time
	// Deltas returns a fresh tracker of one native stream's streamed
	// delta blocks.
	Deltas func() Deltas
	// ReadsCumulative reports that Normalizer honours
	// Options.CumulativeDeltas. For the other providers the option changes
	// nothing, so a tool that rewrites a stream's deltas into cumulative
	// snapshots (replay's cumulative rechunking) cannot check the result
	// with their normalizer.
	ReadsCumulative bool
	// VolatileIDKeys are JSON object keys whose string values are per-run
	// ids (sanitize pseudonymizes them), sorted.
	VolatileIDKeys []string
	// VolatileIDPrefixes are the prefixes the provider gives its ids
	// ("toolu_", "ses_"), sorted; sanitize keeps them in a pseudonym
	// ("toolu_evcap_0001") so that a reader still sees what the id named.
	VolatileIDPrefixes []string
	// ProjectPaths are the gjson paths, in the provider's native stdout
	// lines, of the working directory a run names (Claude's system/init
	// "cwd"), in the order they are tried; nil when its lines name none.
	// sanitize and scan take the project root to redact from there.
	ProjectPaths []string
	// Input returns a fresh matcher of the lines an integration writes to
	// the CLI's stdin, for a replay that stands in for the CLI (evcap
	// play); nil when the CLI reads no protocol lines there, and a replay
	// compares such lines byte for byte.
	Input func() InputMatcher
	// Server is the HTTP API of the CLI's server mode, for a client that
	// drives one session of it; nil when the CLI has none.
	Server *Server

	// JSONOutputArgs are the arguments, after the executable's name, that
	// make the CLI print the JSON lines evcap reads ("--output-format",
	// "stream-json", "--verbose"): what a user who recorded plain text must
	// add. A headless run needs its prompt flags besides (claude -p).
	JSONOutputArgs []string
	// Sessions is where the CLI keeps the sessions it stores for itself;
	// the zero value when History is nil.
	Sessions SessionStore
}

// SessionStore says where a CLI keeps the sessions it stores for itself
// (to resume them later), so that evcap import can find a stored session
// by its id alone. Paths are slash-separated and relative. It describes
// file locations only: the format of a stored entry is the History
// normalizer's.
//
// The data directory is $DirEnv when that is set and not empty, else
// HomeDir under the home directory. With Database, Path under it is the
// one file holding every session. Otherwise Path under it is the directory
// searched (recursively) for session files: regular files whose name
// starts with Prefix and ends with Suffix, Depth directories below it when
// Depth > 0, in a directory named Parent when that is set. One of them is
// the session with a given id (or a unique prefix of it) when its name
// shows the id (NameID), or when the string at IDField in its first line
// starts with it.
type SessionStore struct {
	// DirEnv is the environment variable that moves the data directory
	// ("CLAUDE_CONFIG_DIR"); "" when none does.
	DirEnv string
	// HomeDir is the data directory, relative to the home directory,
	// when DirEnv does not say (".claude").
	HomeDir string
	// Path is the directory of session files under the data directory
	// ("projects"), or with Database the database file
	// ("opencode/opencode.db"); "" when the CLI stores no sessions evcap
	// reads.
	Path string
	// Database: Path is a SQLite database holding every session (its
	// reader picks one by id), not a directory of one file per session.
	Database bool

	// Prefix and Suffix are how a session file's name starts and ends
	// ("rollout-", ".jsonl").
	Prefix, Suffix string
	// Depth, when > 0, is how many directories below Path a session file
	// is (1 for projects/<slug>/<id>.jsonl).
	Depth int
	// Parent, when set, is the name of the directory that holds session
	// files ("chats").
	Parent string
	// NameID says whether and where a file's name shows its session id.
	NameID NameID
	// IDField is the gjson path of the session id in a session file's
	// first line ("payload.id"); "" when the first line is not read.
	IDField string
	// ProjectPaths are the gjson paths, in a stored entry, of the
	// session's working directory, tried in order ("payload.cwd" of
	// Codex's session_meta); nil when the CLI does not store it (Gemini
	// CLI keeps only a hash of it).
	ProjectPaths []string
}

// NameID says where a session file's name shows the session's id.
type NameID uint8

// Where a session file's name shows the id.
const (
	// NameWithoutID: the name does not tell the id.
	NameWithoutID NameID = iota
	// NameStartsWithID: the name is Prefix, then the id.
	NameStartsWithID
	// NameContainsID: the id is somewhere in the name.
	NameContainsID
)

// Options are the reading options a stream normalizer takes. The zero
// value is each normalizer's default; a provider whose output has nothing
// an option applies to ignores it.
type Options struct {
	// CumulativeDeltas reads text and thinking deltas as cumulative
	// snapshots (the whole text of the block so far) rather than pieces,
	// as some Claude-compatible gateways send them.
	CumulativeDeltas bool
}
