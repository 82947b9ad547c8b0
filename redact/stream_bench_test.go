package redact_test

import (
	"bytes"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// BenchmarkStreamGenerated pushes the streamed deltas of a generated Claude
// run (text, thinking and tool-input deltas, a planted secret every 20
// turns) through one redact.Stream per block, as sanitize and record do
// for partial-message captures. Bytes are the deltas' bytes.
func BenchmarkStreamGenerated(b *testing.B) {
	var raw bytes.Buffer
	if _, err := gen.Write(&raw, gen.Options{Provider: "claude", Size: 8 << 20, Seed: 1, SecretEvery: 20}); err != nil {
		b.Fatal(err)
	}
	red, err := redact.New(redact.Options{Home: "/home/dev", Project: "/home/dev/src/app", Temp: []string{"/tmp"}})
	if err != nil {
		b.Fatal(err)
	}
	// blocks[i] is the deltas of one block, in order.
	var blocks [][]string
	open := map[int64]int{}
	var n int64
	lr := lines.NewReader(bytes.NewReader(raw.Bytes()))
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		ev := gjson.GetBytes(l, "event")
		switch ev.Get("type").String() {
		case "content_block_delta":
			d := ev.Get("delta")
			var text string
			for _, k := range []string{"text", "thinking", "partial_json"} {
				if v := d.Get(k); v.Exists() {
					text = v.String()
				}
			}
			idx := ev.Get("index").Int()
			k, ok := open[idx]
			if !ok {
				k = len(blocks)
				blocks = append(blocks, nil)
				open[idx] = k
			}
			blocks[k] = append(blocks[k], text)
			n += int64(len(text))
		case "content_block_stop":
			delete(open, ev.Get("index").Int())
		}
	}
	if n == 0 {
		b.Fatal("the generated run has no deltas")
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, blk := range blocks {
			s := red.NewStream(0)
			for _, d := range blk {
				s.Push(d)
			}
			s.Flush()
		}
	}
}

// BenchmarkStreamKeywordProse streams 32 KiB of prose about credentials
// (the words API key, token, secret, password, auth, and no secret) in
// 12-byte deltas through one Stream: the text on which case-insensitive
// rules with those keywords run again and again as the block grows, which
// is where sanitize of a partial-message capture spent its time.
func BenchmarkStreamKeywordProse(b *testing.B) {
	red, err := redact.New(redact.Options{Home: "/home/dev", Project: "/home/dev/src/app", Temp: []string{"/tmp"}})
	if err != nil {
		b.Fatal(err)
	}
	para := "To rotate the API key, open the settings page and revoke the old token first; " +
		"the secret manager keeps each password and auth credential for the service account, " +
		"and the access key for the bucket is read from the environment at start-up.\n"
	var text []byte
	for len(text) < 32<<10 {
		text = append(text, para...)
	}
	var deltas []string
	for i := 0; i < len(text); i += 12 {
		deltas = append(deltas, string(text[i:min(i+12, len(text))]))
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		s := red.NewStream(0)
		for _, d := range deltas {
			s.Push(d)
		}
		s.Flush()
	}
}
