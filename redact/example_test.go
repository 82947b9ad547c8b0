package redact_test

import (
	"fmt"
	"strings"

	"github.com/evcap/evcap/redact"
)

func fakeKey() string {
	// Built from parts so the repository holds no key-shaped literal.
	return "sk-" + "ant-api03-" + strings.Repeat("Xy7", 10)
}

func ExampleRedactor_Line() {
	r, err := redact.New(redact.Options{Home: "/home/alice", Project: "/home/alice/src/demo"})
	if err != nil {
		panic(err)
	}
	line := `{"cwd":"/home/alice/src/demo","text":"key:\n` + fakeKey() + `","n":1.50e3}`
	out, ledger := r.Line([]byte(line))
	fmt.Println(string(out))
	for _, f := range ledger {
		fmt.Printf("%s at %q: %d× %d bytes\n", f.Rule, f.Pointer, f.Count, f.OriginalLength)
	}
	// Output:
	// {"cwd":"<PROJECT>","text":"key:\n[REDACTED:anthropic-key]","n":1.50e3}
	// path-project at "/cwd": 1× 20 bytes
	// anthropic-key at "/text": 1× 43 bytes
}

func ExampleRedactor_Chunks() {
	r, _ := redact.New(redact.Options{})
	key := fakeKey()
	deltas := []string{"my key is " + key[:5], key[5:20], key[20:] + " ok"}
	for _, c := range r.Chunks(deltas) {
		fmt.Printf("%q\n", c.Text)
	}
	// Output:
	// "my key is [REDACTED:anthropic-key]"
	// ""
	// " ok"
}

func ExampleStream() {
	r, _ := redact.New(redact.Options{})
	key := fakeKey()
	s := r.NewStream(32)
	var out []string
	for _, d := range []string{"token ", key[:9], key[9:], " and some more text to push it out", "."} {
		for _, c := range s.Push(d) {
			out = append(out, c.Text)
		}
	}
	for _, c := range s.Flush() {
		out = append(out, c.Text)
	}
	fmt.Printf("%q\n", out)
	// Output:
	// ["token " "[REDACTED:anthropic-key]" "" " and some more text to push it out" "."]
}

func ExampleRedactor_Scan() {
	r, _ := redact.New(redact.Options{})
	for _, f := range r.Scan([]byte(`{"headers":{"x-api-key":"abc"},"msg":"password=hunter22"}`)) {
		fmt.Println(f.Rule, f.Pointer)
	}
	// Output:
	// sensitive-json-key /headers/x-api-key
	// secret-assignment /msg
}

func ExampleParseConfig() {
	cfg, err := redact.ParseConfig([]byte(`
[redact]
disable = ["secret-assignment", "credential-assignment"]

[[redact.rules]]
id = "acme-token"
regex = 'acme_[a-z0-9]{8}'
keyword = "acme_"
`))
	if err != nil {
		panic(err)
	}
	r, _ := redact.New(redact.Options{Config: cfg})
	out, _ := r.Text([]byte("acme_abcd1234 password=hunter22"))
	fmt.Println(string(out))
	// Output: [REDACTED:acme-token] password=hunter22
}

func ExampleStream_Cut() {
	r, _ := redact.New(redact.Options{})
	key := fakeKey()
	s := r.NewStream(0)
	s.Push("the key is " + key[:12])
	// The caller cannot hold more: what could be the key's start goes out
	// redacted, and the rest of the key is redacted when it arrives.
	for _, c := range s.Cut() {
		fmt.Printf("%q\n", c.Text)
	}
	for _, c := range s.Push(key[12:] + " done") {
		fmt.Printf("%q\n", c.Text)
	}
	// Output:
	// "the key is [REDACTED:anthropic-key]"
	// "[REDACTED:anthropic-key] done"
}

func ExampleRules() {
	for _, sp := range redact.Rules() {
		if sp.ID == redact.RuleAnthropic || sp.ID == "databricks-api-token" {
			fmt.Println(sp.ID, sp.Source, sp.Keywords)
		}
	}
	// Output:
	// anthropic-key evcap [sk-ant-]
	// databricks-api-token gitleaks v8.30.1 config/gitleaks.toml [dapi]
}
