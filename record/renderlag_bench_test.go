package record

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/redact"
)

// lagRenderer notes when each text delta reached the renderer.
type lagRenderer struct {
	mu   sync.Mutex
	seen map[int64]time.Time // native sequence -> first render of a delta it caused
}

func (r *lagRenderer) Render(e event.Event) error {
	if e.Kind != event.KindText || e.Phase != event.PhaseDelta || len(e.Cause) == 0 {
		return nil
	}
	now := time.Now()
	r.mu.Lock()
	if _, ok := r.seen[e.Cause[0]]; !ok {
		r.seen[e.Cause[0]] = now
	}
	r.mu.Unlock()
	return nil
}

func (r *lagRenderer) Close() error { return nil }

// BenchmarkRenderLag measures the live render lag under redaction: the
// real Claude long-text-partial capture (620 lines, text deltas) is fed to
// evcap record's pipeline one line every 5 ms, as the CLI printed it, with
// the default redaction on, and for each text delta the time from its
// line's arrival to its text reaching the live renderer is taken. Lines the
// redaction changed (the scenario plants two fake keys) are left out: their
// tails may start a secret and are held on purpose. Reported: p50 and p99
// in milliseconds, and how many deltas were measured.
//
//	go test ./record -run '^$' -bench RenderLag -benchtime 1x
func BenchmarkRenderLag(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join(corpus, "claude", "long-text-partial.stdout.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(raw, []byte("\n"))
	red, err := redact.New(redact.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var lags []float64
	for range b.N {
		out := filepath.Join(b.TempDir(), "cap.jsonl")
		rend := &lagRenderer{seen: map[int64]time.Time{}}
		pr, pw := io.Pipe()
		arrived := make([]time.Time, len(lines))
		go func() {
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for i, l := range lines {
				<-tick.C
				arrived[i] = time.Now()
				_, _ = pw.Write(l)
			}
			pw.Close()
		}()
		if _, err := Stream(pr, Options{Output: out, Provider: "claude", NewNormalizer: normalizers, Redactor: red,
			NewRenderer: func(io.Writer) Renderer { return rend }, Console: io.Discard}); err != nil {
			b.Fatal(err)
		}
		// Which input line each native record is: payloads equal to the
		// line as printed (lines the redaction changed do not match).
		byText := map[string]int{}
		for i, l := range lines {
			byText[string(bytes.TrimRight(l, "\n"))] = i
		}
		f, err := os.Open(out)
		if err != nil {
			b.Fatal(err)
		}
		rd := envelope.NewReader(f, out, envelope.ReaderOptions{})
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if rec.Stage != envelope.StageNativeIn || len(rec.Redactions) > 0 {
				continue
			}
			i, ok := byText[string(envelope.DecodeNativeLine(rec.EventType, rec.Payload))]
			at, rendered := rend.seen[rec.Sequence]
			if ok && rendered {
				lags = append(lags, float64(at.Sub(arrived[i]).Microseconds())/1000)
			}
		}
		f.Close()
	}
	if len(lags) == 0 {
		b.Fatal("no text delta was measured")
	}
	sort.Float64s(lags)
	pct := func(p float64) float64 { return lags[min(len(lags)-1, int(p*float64(len(lags))))] }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(lags[len(lags)-1], "max-ms")
	b.ReportMetric(float64(len(lags))/float64(b.N), "deltas")
}
