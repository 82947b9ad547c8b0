package capture

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evcap/evcap/envelope"
)

// EnvVar names the environment variable that turns capture on: a file to
// write, or a directory (existing, or ending in a slash) to create a new
// capture file in.
const EnvVar = "EVCAP_CAPTURE"

// FromEnv returns a Capturer when EVCAP_CAPTURE is set in env (os.Getenv
// when env is nil) and nil otherwise; a nil *Capturer is a no-op, so
// integrations call the taps unconditionally.
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
	return Open(target, opts)
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
	c := New(envelope.NewWriter(f, envelope.WriterOptions{CaptureID: id, Now: opts.Now}), opts)
	c.closer = f
	c.path = path
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
