//go:build unix

package export_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/export"
	"github.com/evcap/evcap/source"
)

// otlpCounter is an OTLP/HTTP receiver that counts the spans it gets, by
// trace and span id, so a test can tell a span sent twice.
type otlpCounter struct {
	mu    sync.Mutex
	spans map[string]int
	total int
}

func newOTLPCounter(t *testing.T) (*otlpCounter, string) {
	c := &otlpCounter{spans: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = zr
		}
		raw, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var req coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(raw, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		c.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					c.spans[fmt.Sprintf("%x/%x", s.TraceId, s.SpanId)]++
					c.total++
				}
			}
		}
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return c, srv.URL
}

func (c *otlpCounter) counts() (total, distinct int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total, len(c.spans)
}

// writeFleet writes n small captures under dir (in 100 subdirectories),
// each the records of a real corpus fixture under a capture id of its own.
func writeFleet(t *testing.T, dir string, n int) {
	t.Helper()
	in, err := source.Open("../fixtures/testdata/claude/tools", nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*envelope.Record
	rd := envelope.NewReader(in.Reader(), "fixture", envelope.ReaderOptions{})
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec.Clone())
	}
	in.Close()
	base := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var line []byte
	for i := range n {
		id, err := envelope.NewCaptureID(base.Add(time.Duration(i)*time.Second), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		for _, r := range recs {
			r.CaptureID = id
			r.Timestamp = envelope.FormatTimestamp(base.Add(time.Duration(i)*time.Second + time.Duration(r.Sequence)*time.Millisecond))
			line = envelope.AppendRecord(line[:0], r)
			buf.Write(line)
		}
		sub := filepath.Join(dir, strconv.Itoa(i%100))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, id+".jsonl"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func spansOf(t *testing.T, path string) int {
	t.Helper()
	in, err := source.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	sum, err := export.Capture(context.Background(), in.Reader(), path, export.Options{}, func(*export.Span) {})
	if err != nil {
		t.Fatal(err)
	}
	return sum.Spans
}

// TestFleetHelper is not a test on its own: TestFleetTenThousand runs the
// test binary again with EVCAP_FLEET_* set, so that the export runs in a
// process of its own whose peak RSS can be read.
func TestFleetHelper(t *testing.T) {
	dir, url, ledgerPath := os.Getenv("EVCAP_FLEET_DIR"), os.Getenv("EVCAP_FLEET_OTLP"), os.Getenv("EVCAP_FLEET_LEDGER")
	if dir == "" {
		t.Skip("run by TestFleetTenThousand")
	}
	ctx := context.Background()
	sender, err := export.NewSender(ctx, export.SenderOptions{Endpoint: url, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := export.OpenLedger(ledgerPath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := export.Fleet(ctx, []string{dir}, sender.Send, export.FleetOptions{Workers: 4, Ledger: ledger})
	if err != nil {
		t.Fatal(err)
	}
	if err := sender.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ledger.Save(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("FLEET captures=%d skipped=%d failed=%d spans=%d\n", res.Captures, res.Skipped, res.Failed, res.Spans)
}

// TestFleetTenThousand exports a tree of 10,000 small captures twice with
// a ledger: the first run sends every span exactly once in a process
// whose peak RSS stays under 100 MiB, the second sends nothing.
func TestFleetTenThousand(t *testing.T) {
	// The whole 10,000 and the memory bound run without the race detector
	// (.ci/after-export.sh); under it, a smaller tree checks send-once.
	n := 10000
	if testing.Short() || raceEnabled {
		n = 1000
	}
	dir := t.TempDir()
	writeFleet(t, filepath.Join(dir, "captures"), n)
	counter, url := newOTLPCounter(t)
	ledger := filepath.Join(dir, "ledger.tsv")
	runOnce := func() (string, int64) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFleetHelper$", "-test.v")
		cmd.Env = append(os.Environ(), "EVCAP_FLEET_DIR="+filepath.Join(dir, "captures"), "EVCAP_FLEET_OTLP="+url, "EVCAP_FLEET_LEDGER="+ledger)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("fleet export: %v\n%s", err, out)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		return string(out), ru.Maxrss // KiB on Linux
	}
	out1, rss := runOnce()
	total, distinct := counter.counts()
	perCapture := spansOf(t, "../fixtures/testdata/claude/tools")
	if distinct != n*perCapture || total != distinct {
		t.Fatalf("first run: %d spans received, %d distinct, want %d each\n%s", total, distinct, n*perCapture, out1)
	}
	t.Logf("first run: %d captures, %d spans, peak RSS %d KiB", n, total, rss)
	if !raceEnabled && rss > 100*1024 {
		t.Errorf("peak RSS %d KiB exporting %d captures, bound 100 MiB", rss, n)
	}
	out2, _ := runOnce()
	if total2, _ := counter.counts(); total2 != total {
		t.Fatalf("second run sent %d more spans, want none\n%s", total2-total, out2)
	}
	if !bytes.Contains([]byte(out2), []byte(fmt.Sprintf("FLEET captures=0 skipped=%d failed=0", n))) {
		t.Fatalf("second run did not skip every capture:\n%s", out2)
	}
}
