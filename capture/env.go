package capture

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/redact"
)

// EnvVar names the environment variable that turns capture on: a file to
// write, or a directory (existing, or ending in a slash) to create a new
// capture file in.
const EnvVar = "EVCAP_CAPTURE"

// NoRedactEnvVar, set to 1, makes FromEnv write payloads unredacted.
const NoRedactEnvVar = "EVCAP_NO_REDACT"

// FromEnv returns a Capturer when EVCAP_CAPTURE is set in env (os.Getenv
// when env is nil) and nil otherwise; a nil *Capturer is a no-op, so
// integrations call the taps unconditionally.
//
// Unless opts.Redact is set or EVCAP_NO_REDACT=1, payloads are redacted
// with evcap's default rules, this machine's home, working and temp
// directories and the [redact] table of ./.evcap.toml, as evcap record
// does (line by line: a secret split across streamed deltas is left to
// evcap sanitize). The capture.start record (provider, argv with its
// secrets masked, OS) is written before the first record unless Begin is
// called first.
func FromEnv(getenv func(string) string, opts Options) (*Capturer, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	target := getenv(EnvVar)
	if target == "" {
		return nil, nil
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	var red *redact.Redactor
	if opts.Redact == nil && getenv(NoRedactEnvVar) != "1" {
		r, err := DefaultRedactor()
		if err != nil {
			return nil, fmt.Errorf("capture: redaction: %w", err)
		}
		red = r
		opts.Redact = RedactHook(r)
	}
	if !opts.AutoStart {
		opts.AutoStart = true
		if opts.StartInfo.Provider == "" {
			opts.StartInfo.Provider = opts.Provider
		}
		if opts.StartInfo.Argv == nil && len(os.Args) > 0 {
			opts.StartInfo.Argv = maskArgv(os.Args, red)
			opts.StartInfo.CLIName = filepath.Base(os.Args[0])
		}
	}
	return Open(target, opts)
}

// DefaultRedactor is the redaction evcap record applies by default: the
// rules, this machine's home, working and temp directories, and the
// [redact] table of ./.evcap.toml.
func DefaultRedactor() (*redact.Redactor, error) {
	cfg, err := redact.LoadConfig(".evcap.toml")
	if err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	return redact.New(redact.Options{Home: home, Project: cwd, Temp: []string{os.TempDir()}, Config: cfg})
}

// maskArgv runs the redactor over each argument (nil: unchanged).
func maskArgv(argv []string, red *redact.Redactor) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if red != nil {
			b, _ := red.Text([]byte(a))
			a = string(b)
		}
		out[i] = a
	}
	return out
}

// Open creates a capture file at path (or, when path is a directory, a new
// file named after the provider, the date and the capture id inside it) and
// returns a Capturer writing to it.
func Open(path string, opts Options) (*Capturer, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	now := opts.Now()
	id, err := envelope.NewCaptureID(now, rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("capture id: %w", err)
	}
	if st, err := os.Stat(path); (err == nil && st.IsDir()) || strings.HasSuffix(path, string(os.PathSeparator)) {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, fmt.Errorf("capture directory: %w", err)
		}
		path = filepath.Join(path, FileName(opts.Provider, now, id))
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("capture file: %w", err)
	}
	d := fileWriter(f, opts)
	c := New(envelope.NewWriter(d, envelope.WriterOptions{CaptureID: id, Now: opts.Now}), opts)
	c.closer, c.path, c.id = d, path, id
	return c, nil
}

// FileName is the name of a new capture file: provider, UTC date and time,
// capture id. Distinct ids keep concurrent recorders apart.
func FileName(provider string, t time.Time, captureID string) string {
	if provider == "" {
		provider = "capture"
	}
	return fmt.Sprintf("%s-%s-%s.jsonl", provider, t.UTC().Format("20060102T150405Z"), captureID)
}

// Path returns the file the Capturer writes to, when it opened one.
func (c *Capturer) Path() string {
	if c == nil {
		return ""
	}
	return c.path
}
