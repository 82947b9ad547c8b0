package export

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Ledger remembers which captures were exported, so that a second run over
// the same tree sends only what is new. A capture is known by its trace id
// (see Identity) and the last sequence number it had when exported: a
// capture that grew (a recording that went on) is exported again, under
// the same trace id. The file is one "traceId<TAB>lastSequence" line per capture,
// written whole to a temporary file and renamed, so an interrupted run
// leaves the previous ledger intact.
type Ledger struct {
	path string
	mu   sync.Mutex
	seen map[string]int64
}

// OpenLedger reads the ledger at path; a missing file is an empty ledger.
func OpenLedger(path string) (*Ledger, error) {
	l := &Ledger{path: path, seen: map[string]int64{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	defer f.Close()
	// Its lines are ours and short (a trace id and a number); a longer one
	// means the file is not a ledger, which the 1 MiB cap reports as such.
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		id, seq, ok := strings.Cut(sc.Text(), "\t")
		n, err := strconv.ParseInt(seq, 10, 64)
		if !ok || err != nil || id == "" {
			return nil, fmt.Errorf("ledger %s:%d: want traceId<TAB>lastSequence", path, line)
		}
		l.seen[id] = n
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ledger %s: %w", path, err)
	}
	return l, nil
}

// Has reports whether the capture was exported up to lastSeq already.
func (l *Ledger) Has(traceID string, lastSeq int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, ok := l.seen[traceID]
	return ok && n >= lastSeq
}

// Add notes an exported capture.
func (l *Ledger) Add(traceID string, lastSeq int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen[traceID] = lastSeq
}

// Save writes the ledger (sorted, so it diffs well).
func (l *Ledger) Save() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := make([]string, 0, len(l.seen))
	for id := range l.seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "%s\t%d\n", id, l.seen[id])
	}
	tmp, err := os.CreateTemp(filepath.Dir(l.path), ".evcap-ledger-*")
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("ledger: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("ledger: %w", err)
	}
	if err := os.Rename(tmp.Name(), l.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("ledger: %w", err)
	}
	return nil
}
