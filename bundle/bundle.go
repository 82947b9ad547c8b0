package bundle

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/ctxread"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
)

// Names of the archive's entries, under Dir.
const (
	Dir          = "evcap-bundle/"
	SummaryFile  = "summary.md"
	ManifestFile = "manifest.json"
	CaptureFile  = "capture.jsonl"
)

// ModTime is the modification time of every entry, so that archives of
// the same capture are byte-identical: 2000-01-01T00:00:00Z, the instant
// sanitize moves captures to (sanitize's epoch). A function, so that no
// program can change the time another part of it writes.
func ModTime() time.Time { return sanitize.Epoch() }

// ErrLeak is wrapped by *LeakError: the scan found something in the bundle.
var ErrLeak = errors.New("the bundle would leak")

// LeakError lists what the scan found in the files of a bundle.
type LeakError struct {
	Findings []scan.Finding
}

// maxListed bounds the findings an error message names.
const maxListed = 20

func (e *LeakError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: scan found %d problem(s); nothing was written:", ErrLeak, len(e.Findings))
	for i, f := range e.Findings {
		if i == maxListed {
			fmt.Fprintf(&b, "\n  … and %d more", len(e.Findings)-maxListed)
			break
		}
		if f.Sequence > 0 {
			fmt.Fprintf(&b, "\n  %s:%d (sequence %d): rule %s", f.File, f.Line, f.Sequence, f.Rule)
		} else {
			fmt.Fprintf(&b, "\n  %s:%d: rule %s", f.File, f.Line, f.Rule)
		}
		if f.Pointer != "" {
			fmt.Fprintf(&b, " at %s", f.Pointer)
		}
		if f.Decoded != "" {
			fmt.Fprintf(&b, " (seen after decoding: %s)", f.Decoded)
		}
	}
	b.WriteString("\nadd a rule or allowlist entry to .evcap.toml, or remove the record, then bundle again")
	return b.String()
}

func (e *LeakError) Unwrap() error { return ErrLeak }

// Options configure Build.
type Options struct {
	// EvcapVersion is written to the manifest as the bundling evcap.
	EvcapVersion string
	// Sanitize configures the sanitizer (machine paths, private text).
	Sanitize sanitize.Options
	// AlreadySanitized bundles the capture as it is, without sanitizing
	// it again: for a capture the user sanitized with options of their
	// own and reviewed. The scan still runs.
	AlreadySanitized bool
	// Scan configures the leak check (package scan, which is not the
	// redactor). Its Project defaults to the project root sanitize used,
	// so that a root the capture declared is checked too.
	Scan scan.Options
	// Normalizer makes a normalizer for a provider, for the census and for
	// the summary of captures without normalized_out records; nil, or an
	// error, leaves the census unchecked.
	Normalizer func(provider string) (event.Normalizer, error)
}

// Bundle is a built, scanned bundle ready to write.
type Bundle struct {
	Manifest Manifest
	// Summary is summary.md.
	Summary []byte

	manifest []byte
	capture  io.ReadSeeker
}

// Build sanitizes the capture read from in (name is used in errors) into
// scratch, derives the manifest and summary from the sanitized records
// and scans all three. It returns a *LeakError when the scan finds
// anything. scratch holds the sanitized capture until the bundle is
// written; the caller owns it (a temporary file). When in is an
// io.ReadSeeker the sanitizer first learns the project root the capture
// names; a stream read once (a FIFO, a pipe) cannot tell it for the
// records before the one naming it, so pass such an input through
// source.Spool, which copies it once to a file, to get the archive its file
// would give. Once ctx is done (checked before each record and each read
// of the copy and the scan) Build returns ctx's cause.
func Build(ctx context.Context, in io.Reader, name string, scratch io.ReadWriteSeeker, opts Options) (*Bundle, error) {
	var rep sanitize.Report
	if opts.AlreadySanitized {
		if _, err := io.Copy(scratch, ctxread.Reader(ctx, in)); err != nil {
			return nil, fmt.Errorf("bundle: copy %s: %w", name, err)
		}
		rep.Project = opts.Sanitize.Project
	} else {
		var err error
		rep, err = sanitize.SanitizeContext(ctx, in, name, scratch, opts.Sanitize)
		if err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
	}
	m := Manifest{BundleFormat: FormatVersion, EvcapVersion: opts.EvcapVersion,
		Sanitize: SanitizeInfo{Redactions: rep.Redactions, Pseudonyms: rep.Pseudonyms, PrivateText: opts.Sanitize.PrivateText,
			EarlyFlushes: rep.EarlyFlushes, TornLine: rep.TornLine, Skipped: opts.AlreadySanitized},
		Files: []string{SummaryFile, ManifestFile, CaptureFile}}
	if _, err := scratch.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("bundle: rewind sanitized capture: %w", err)
	}
	col := newCollector(&m, opts.Normalizer)
	if err := col.run(ctx, scratch, CaptureFile); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	derived := col.recorded.events == 0 && col.derived.events > 0
	t := col.recorded
	if derived {
		t = col.derived
	}
	b := &Bundle{Manifest: m, capture: scratch}
	b.Summary = summaryFigures{m: &b.Manifest, t: t, derived: derived, stderr: col.stderr, last: col.last}.markdown()
	var err error
	b.manifest, err = json.MarshalIndent(&b.Manifest, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("bundle: encode manifest: %w", err)
	}
	b.manifest = append(b.manifest, '\n')

	so := opts.Scan
	if so.Project == "" {
		so.Project = rep.Project
	}
	sc, err := scan.New(so)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	var findings []scan.Finding
	for _, f := range []struct {
		name string
		kind scan.Kind
		r    io.Reader
	}{{SummaryFile, scan.KindFile, bytes.NewReader(b.Summary)}, {ManifestFile, scan.KindFile, bytes.NewReader(b.manifest)}, {CaptureFile, scan.KindCapture, scratch}} {
		if f.name == CaptureFile {
			if _, err := scratch.Seek(0, io.SeekStart); err != nil {
				return nil, fmt.Errorf("bundle: rewind sanitized capture: %w", err)
			}
		}
		found, err := sc.Read(ctxread.Reader(ctx, f.r), f.name, f.kind)
		if err != nil {
			return nil, fmt.Errorf("bundle: scan %s: %w", f.name, err)
		}
		findings = append(findings, found...)
	}
	if len(findings) > 0 {
		return nil, &LeakError{Findings: findings}
	}
	return b, nil
}

// WriteZip writes the archive: summary.md, manifest.json and the
// sanitized capture under Dir, deflated, with fixed times and modes.
func (b *Bundle) WriteZip(w io.Writer) error {
	zw := zip.NewWriter(w)
	add := func(name string, r io.Reader) error {
		h := &zip.FileHeader{Name: Dir + name, Method: zip.Deflate, Modified: ModTime()}
		h.SetMode(0o644)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return fmt.Errorf("bundle: %s: %w", name, err)
		}
		if _, err := io.Copy(fw, r); err != nil {
			return fmt.Errorf("bundle: write %s: %w", name, err)
		}
		return nil
	}
	if err := add(SummaryFile, bytes.NewReader(b.Summary)); err != nil {
		return err
	}
	if err := add(ManifestFile, bytes.NewReader(b.manifest)); err != nil {
		return err
	}
	if _, err := b.capture.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("bundle: rewind sanitized capture: %w", err)
	}
	if err := add(CaptureFile, b.capture); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("bundle: finish archive: %w", err)
	}
	return nil
}

// ManifestJSON is manifest.json as written to the archive.
func (b *Bundle) ManifestJSON() []byte { return b.manifest }
