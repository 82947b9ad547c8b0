package redact

import "testing"

// A Claude stream_event line as the corpus has thousands of: no secret, no path.
const benchClean = `{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"the quick brown fox jumps over the lazy dog — ünïcödé line 7 ✓\n"}},"session_id":"bb08ae09-36ec-41f0-9835-470216f0edea","parent_tool_use_id":null,"uuid":"90c63608-2dae-4f04-a3fe-ae464fdacad6"}`

func benchSecretLine() []byte {
	g := newGen()
	return []byte(`{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"key:\n` +
		"sk-" + "ant-api03-" + g.s(urlSafe, 93) + `\nin /home/alice/src/demo/.env with password=` + g.s(alnum, 16) + `"}},"session_id":"bb08ae09-36ec-41f0-9835-470216f0edea","uuid":"90c63608-2dae-4f04-a3fe-ae464fdacad6"}`)
}

func BenchmarkLineClean(b *testing.B) {
	r := testRedactor(b)
	line := []byte(benchClean)
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		r.Line(line)
	}
}

func BenchmarkLineSecrets(b *testing.B) {
	r := testRedactor(b)
	line := benchSecretLine()
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		r.Line(line)
	}
}

func BenchmarkTextClean(b *testing.B) {
	r := testRedactor(b)
	line := []byte("npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory. Do not use it.")
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		r.Text(line)
	}
}
