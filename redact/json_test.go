package redact

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

func TestJSONAwareRules(t *testing.T) {
	g := newGen()
	cookie := "sid=" + g.s(alnum, 20)
	key := g.s(alnum, 24)
	tests := []struct {
		name, in, want string
		findings       []Finding
		reason         string
	}{{
		name:     "credential keys",
		in:       `{"headers":{"Authorization":"Basic dXNlcjpwYXNz","X-Api-Key":"` + key + `","cookie":"` + cookie + `"},"apiKey":"` + key + `","client_secret":"x1"}`,
		want:     `{"headers":{"Authorization":"[REDACTED:sensitive-json-key]","X-Api-Key":"[REDACTED:sensitive-json-key]","cookie":"[REDACTED:sensitive-json-key]"},"apiKey":"[REDACTED:sensitive-json-key]","client_secret":"[REDACTED:sensitive-json-key]"}`,
		reason:   "whole values under credential keys go, whatever their shape",
		findings: []Finding{{RuleSensitiveKey, "/headers/Authorization", 1, 18}, {RuleSensitiveKey, "/headers/X-Api-Key", 1, 24}, {RuleSensitiveKey, "/headers/cookie", 1, 24}, {RuleSensitiveKey, "/apiKey", 1, 24}, {RuleSensitiveKey, "/client_secret", 1, 2}},
	}, {
		name:     "env map",
		in:       `{"env":{"PATH":"/usr/bin","DEBUG":"1","N":3},"environment":"prod"}`,
		want:     `{"env":{"PATH":"[REDACTED:env-value]","DEBUG":"[REDACTED:env-value]","N":3},"environment":"prod"}`,
		reason:   "an env map is private as a whole; a plain string under env is not a map",
		findings: []Finding{{RuleEnvValue, "/env/PATH", 1, 8}, {RuleEnvValue, "/env/DEBUG", 1, 1}},
	}, {
		name:     "response headers in an error",
		in:       `{"error":{"status":429,"responseHeaders":{"content-type":"application/json","retry-after":"3","x-request-id":"req_9","set-cookie":"a=b"}}}`,
		want:     `{"error":{"status":429,"responseHeaders":{"content-type":"application/json","retry-after":"3","x-request-id":"[REDACTED:response-header]","set-cookie":"[REDACTED:response-header]"}}}`,
		reason:   "harmless headers stay for debugging, the rest goes",
		findings: []Finding{{RuleRespHeader, "/error/responseHeaders/x-request-id", 1, 5}, {RuleRespHeader, "/error/responseHeaders/set-cookie", 1, 3}},
	}, {
		name:     "pointer escapes and arrays",
		in:       `{"a/b":[{"m~n":"token=` + key + `"}]}`,
		want:     `{"a/b":[{"m~n":"token=[REDACTED:secret-assignment]"}]}`,
		reason:   "RFC 6901 escapes ~ and /",
		findings: []Finding{{RuleAssignment, "/a~1b/0/m~0n", 1, 24}},
	}, {
		name:     "formatting kept",
		in:       "{ \"n\" : 1.50E+3 ,\n \"s\" : \"caf\\u00e9 \\/ password=" + key + "\\n\" }",
		want:     "{ \"n\" : 1.50E+3 ,\n \"s\" : \"caf\\u00e9 \\/ password=[REDACTED:secret-assignment]\\n\" }",
		reason:   "no re-encoding: escapes, spacing and number spelling stay",
		findings: []Finding{{RuleAssignment, "/s", 1, 24}},
	}, {
		name:     "secret in a key",
		in:       `{"files":{"/home/alice/src/demo/a.go":1}}`,
		want:     `{"files":{"<PROJECT>/a.go":1}}`,
		reason:   "keys are strings too; the pointer uses the redacted key",
		findings: []Finding{{RulePathProject, "/files/<PROJECT>~1a.go", 1, 20}},
	}}
	r := testRedactor(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, f, err := r.JSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("%s\n got: %s\nwant: %s", tt.reason, got, tt.want)
			}
			if !gjson.Valid(string(got)) {
				t.Errorf("output is not valid JSON: %s", got)
			}
			if d := cmp.Diff(tt.findings, f); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}

func TestJSONRejectsInvalid(t *testing.T) {
	r := testRedactor(t)
	for _, in := range []string{`{"a":`, `not json`, `{"a":"b"} x`, strings.Repeat("[", 600) + strings.Repeat("]", 600)} {
		if _, _, err := r.JSON([]byte(in)); err == nil {
			t.Errorf("JSON(%.40q) = nil error, want ErrNotJSON", in)
		}
	}
	if got, _ := r.Line([]byte(`{"torn":"password=abc12345`)); string(got) != `{"torn":"password=[REDACTED:secret-assignment]` {
		t.Errorf("torn line falls back to text: got %s", got)
	}
}

func TestPaths(t *testing.T) {
	r, err := New(Options{Home: "/root", Project: "/tmp/realcli/runs/claude/long-text-partial/project", Temp: []string{"/tmp/realcli/runs/claude/long-text-partial/tmp/", "/tmp/xyz"}})
	if err != nil {
		t.Fatal(err)
	}
	in := `{"cwd":"/tmp/realcli/runs/claude/long-text-partial/project","memory":"/root/.claude/projects/-tmp-realcli-runs-claude-long-text-partial-project/memory/","u":"file:///tmp/xyz/trace.txt","w":"C:\\x /tmp/xyz.","t":"/tmp/realcli/runs/claude/long-text-partial/tmp/a","no":"/tmp/xyz2 /root2 /x/root"}`
	want := `{"cwd":"<PROJECT>","memory":"<HOME>/.claude/projects/<PROJECT>/memory/","u":"file://<TMP>/trace.txt","w":"C:\\x <TMP>.","t":"<TMP>/a","no":"/tmp/xyz2 /root2 /x/root"}`
	got, _, err := r.JSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("\n got: %s\nwant: %s", got, want)
	}
	// Paths after an escaped newline in text that was not decoded.
	text, _ := r.Text([]byte(`log:\n/tmp/xyz/a`))
	if string(text) != `log:\n<TMP>/a` {
		t.Errorf("escaped text: got %s", text)
	}
}

func TestLargeStringsAndBinaries(t *testing.T) {
	r, err := New(Options{MaxString: 1000})
	if err != nil {
		t.Fatal(err)
	}
	g := newGen()
	long := strings.Repeat("é lorem ipsum ", 200) // 3000 bytes, two-byte runes
	key := "sk-" + "ant-api03-" + g.s(alnum, 40)
	in := jsonLine(map[string]any{"text": long[:499] + key + long[499:]})
	got, f, err := r.JSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	v := gjson.GetBytes(got, "text").String()
	if !gjson.ValidBytes(got) || len(v) > 1000 || !strings.Contains(v, "[TRUNCATED:original 3053 bytes]") {
		t.Errorf("long string not cut as expected: %d bytes, %q…", len(v), v[:80])
	}
	if strings.Contains(string(got), key[10:]) || strings.Contains(v, "sk-ant") {
		t.Errorf("a piece of the key survived the cut: %s", v)
	}
	if f[len(f)-1].Rule != RuleLargeString || f[len(f)-1].OriginalLength != 3053 {
		t.Errorf("ledger: %v", f)
	}
	if again, f2 := r.Line(got); string(again) != string(got) || f2 != nil {
		t.Errorf("cut string changed again: %v", f2)
	}

	png := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), []byte(strings.Repeat("pixels", 100))...))
	img := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png + `"}}`
	got, f, err = r.JSON([]byte(img))
	if err != nil {
		t.Fatal(err)
	}
	wantImg := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"[BINARY:image/png;608 bytes]"}}`
	if string(got) != wantImg || f[0].Rule != RuleBinary || f[0].OriginalLength != len(png) {
		t.Errorf("image block:\n got: %s\nwant: %s\n%v", got, wantImg, f)
	}
	dataURL := `{"url":"data:image/png;base64,` + png + `"}`
	got, _, _ = r.JSON([]byte(dataURL))
	if string(got) != `{"url":"data:image/png;base64,[BINARY:image/png;608 bytes]"}` {
		t.Errorf("data URL: got %s", got)
	}
	blob := "dump: " + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x00\x01binary\xff", 150))) + " end"
	gotText, _ := r.Text([]byte(blob))
	if string(gotText) != "dump: [BINARY:application/octet-stream;1350 bytes] end" {
		t.Errorf("blob: got %.120s", gotText)
	}
}

func TestConfig(t *testing.T) {
	cfg, err := LoadConfig("testdata/evcap.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	g := newGen()
	acme := "acme_" + g.s(alnum, 32)
	sess := g.s("0123456789abcdef", 40)
	in := "AKIAIOSFODNN7EXAMPLE " + acme + " password=hunter22 X-Internal-Session: " + sess
	want := "AKIAIOSFODNN7EXAMPLE [REDACTED:acme-token] password=hunter22 X-Internal-Session: [REDACTED:internal-session]"
	if got, _ := r.Text([]byte(in)); string(got) != want {
		t.Errorf("\n got: %s\nwant: %s", got, want)
	}
	for _, bad := range []string{
		"[redact]\ndisabel = [\"jwt\"]",
		"[redact]\ndisable = [\"no-such-rule\"]",
		"[[redact.rules]]\nid = \"jwt\"\nregex = 'x'\nkeyword = \"x\"",
		"[[redact.rules]]\nid = \"Bad Id\"\nregex = 'x'\nkeyword = \"x\"",
		"[[redact.rules]]\nid = \"a\"\nregex = '('\nkeyword = \"x\"",
		"[[redact.rules]]\nid = \"a\"\nregex = 'x'",
	} {
		if _, err := ParseConfig([]byte(bad)); err == nil {
			t.Errorf("ParseConfig(%q) accepted a bad config", bad)
		}
	}
	if c, err := ParseConfig([]byte("[sanitize]\nfoo = 1\n")); err != nil || len(c.Rules) != 0 {
		t.Errorf("other tables must be ignored: %v %v", c, err)
	}
	if c, err := LoadConfig("testdata/does-not-exist.toml"); err != nil || len(c.Disable) != 0 {
		t.Errorf("missing file: %v %v", c, err)
	}
}
