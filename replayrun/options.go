package replayrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evcap/evcap/replay"
)

// Options are the settings of one Run, the flags of evcap replay as typed
// fields. The zero value checks every input against every golden it has.
// Messages about them name the evcap replay flags.
type Options struct {
	// Mode replays one stage only (--mode); "" checks every golden a
	// fixture has, and native mode for a capture.
	Mode replay.Mode
	// Format is the one renderer checked in normalized mode, and in native
	// mode with Rechunk (--format): term, chat, groups, or legacy (which
	// means legacy mode). When empty, a fixture is checked against every
	// renderer it has a golden of, and term is used where one is needed.
	Format string
	// Rechunk checks, instead of the goldens, that re-splitting every
	// delta at points chosen by RechunkSeed changes neither the normalized
	// text nor the rendered output (--rechunk SEED).
	Rechunk     bool
	RechunkSeed uint64
	// Cumulative, with Rechunk in native mode, also rewrites the re-split
	// delta lines into cumulative snapshots and reads them back with the
	// provider's cumulative-deltas reading (--cumulative).
	Cumulative bool
	// CumulativeDeltas reads the native lines as cumulative snapshots
	// (--cumulative-deltas), for captures of gateways that send them.
	CumulativeDeltas bool
	// Update rewrites the goldens checked instead of comparing with them
	// (fixture directories only); a golden that would not change is not
	// written.
	Update bool
	// Inject adds a known fault (see Inject) to show what a failing
	// replay reports.
	Inject string

	// Exec replays the native stdout through this command (run with
	// sh -c) and compares its stdout with golden/exec-NAME.golden, once per
	// chunking, instead of every other check (--exec).
	Exec string
	// Name is the NAME of Exec's golden; "" takes ExecName(Exec).
	Name string
	// Golden is the file Exec's output is compared with or written to,
	// for a capture, which has no golden directory (--golden).
	Golden string
	// Chunkings say how Exec's input is split into writes, each in the
	// form replay.ParseChunking reads; none: replay.DefaultChunkings.
	Chunkings []string
	// Timing paces Exec's writes, in the form replay.ParseTiming reads
	// ("" is max); original pacing needs a capture file.
	Timing string
	// Settle is how long Exec's output must be quiet before the next line
	// is fed when a mismatch is explained; 0 is replay's default.
	Settle time.Duration
	// NoExec leaves out the exec goldens recorded with a fixture.
	NoExec bool

	// Stdin is what the path "-" reads. It is read once, into a temporary
	// copy that every check reads and Run removes.
	Stdin io.Reader
	// Temp makes the temporary files of those copies.
	Temp TempFiles
	// WrapReader, when set, wraps every capture file a check reads (evcap
	// stops the reading when ctx is done and counts its lines towards its
	// memory budget). nil reads the file as it is.
	WrapReader func(ctx context.Context, r io.ReadSeeker) io.ReadSeeker
}

// TempFiles makes the temporary files standard input and named pipes are
// copied to, and hears when each is removed (evcap keeps a list of them to
// remove when a signal ends the process). The zero value uses
// os.CreateTemp.
type TempFiles struct {
	Create  func(dir, pattern string) (*os.File, error)
	Removed func(name string)
}

func (t TempFiles) create(dir, pattern string) (*os.File, error) {
	if t.Create == nil {
		return os.CreateTemp(dir, pattern)
	}
	return t.Create(dir, pattern)
}

func (t TempFiles) removed(name string) {
	if t.Removed != nil {
		t.Removed(name)
	}
}

// wrap is o.WrapReader applied to r, or r.
func (o Options) wrap(ctx context.Context, r io.ReadSeeker) io.ReadSeeker {
	if o.WrapReader == nil {
		return r
	}
	return o.WrapReader(ctx, r)
}

// format is the renderer named by o.Format, term when none is.
func (o Options) format() string {
	if o.Format == "" {
		return "term"
	}
	return o.Format
}

// Check reports the first setting of o that is not valid or does not go
// with another one. Run checks o first.
func (o Options) Check() error {
	switch o.Mode {
	case "", replay.ModeNative, replay.ModeNormalized, replay.ModeLegacy:
	default:
		return fmt.Errorf("unknown mode %q (want native, normalized or legacy)", o.Mode)
	}
	if o.Exec != "" && o.Mode != "" {
		return errors.New("--exec replays the native stdout through your command; drop --mode")
	}
	if o.Exec == "" && (len(o.Chunkings) > 0 || o.Name != "" || (o.Timing != "" && o.Timing != "max") || o.Golden != "") {
		return errors.New("--chunking, --name, --timing and --golden go with --exec")
	}
	for _, c := range o.Chunkings {
		if _, err := replay.ParseChunking(c); err != nil {
			return err
		}
	}
	if _, err := replay.ParseTiming(o.Timing); err != nil {
		return err
	}
	if o.Cumulative && (!o.Rechunk || (o.Mode != "" && o.Mode != replay.ModeNative)) {
		return errors.New("--cumulative needs --rechunk SEED and native mode")
	}
	if o.Inject == "ignore-cumulative" && !o.Cumulative {
		return errors.New("--inject ignore-cumulative needs --cumulative")
	}
	if o.Cumulative && o.CumulativeDeltas {
		return errors.New("--cumulative makes its own cumulative input from a capture of deltas; drop --cumulative-deltas")
	}
	return Inject(&replay.Options{}, o.Inject)
}

// execName is o.Name, or ExecName(o.Exec).
func (o Options) execName() string {
	if o.Name != "" {
		return o.Name
	}
	return ExecName(o.Exec)
}

// ExecName is the golden name an exec command gets when none is given:
// the file name, without extension, of the first word of command that
// looks like a path, else of its first word ("node bridge.js" gives
// bridge).
func ExecName(command string) string {
	words := strings.Fields(command)
	if len(words) == 0 {
		return ""
	}
	pick := words[0]
	for _, w := range words {
		if strings.ContainsAny(w, "/.") && !strings.HasPrefix(w, "-") {
			pick = w
			break
		}
	}
	base := filepath.Base(pick)
	if ext := filepath.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}
