package redact

import (
	"sort"
	"strings"
	"testing"
)

// TestCorpusNegative runs every rule over the real corpus, which holds no
// secret: the only changes allowed are the documented ones (machine paths,
// base64 blobs and binaries, the sensitive keys and env maps the capture
// does carry). Any secret rule that fires on it is a false positive.
func TestCorpusNegative(t *testing.T) {
	r := corpusRedactor(t)
	documented := map[string]string{
		RulePathHome:     "the recording machine's home (/root)",
		RulePathProject:  "the project directory",
		RulePathTemp:     "temp directories",
		RuleBinary:       "inline images and documents",
		RuleBase64Blob:   "base64 runs of 1 KiB or more",
		RuleSensitiveKey: "credential-named JSON keys",
		RuleEnvValue:     "env maps",
		RuleRespHeader:   "response headers",
		RuleLargeString:  "strings past MaxString",
		// MANIFEST.md, scenario long-text: the answer holds a fake
		// sk-ant-api03- key and a fake AKIA key id on purpose.
		RuleAnthropic: "the planted fake key of scenario long-text",
		RuleAWSKeyID:  "the planted fake key id of scenario long-text",
	}
	counts := map[string]int{}
	examples := map[string]string{}
	lines := corpusLines(t)
	for _, line := range lines {
		out, fs := r.Line(line)
		for _, f := range fs {
			counts[f.Rule] += f.Count
			if _, ok := examples[f.Rule]; !ok && documented[f.Rule] == "" {
				i := strings.Index(string(out), "[REDACTED:"+f.Rule)
				examples[f.Rule] = string(out[max(0, i-120):min(len(out), i+60)])
			}
		}
	}
	var rules []string
	for k := range counts {
		rules = append(rules, k)
	}
	sort.Strings(rules)
	for _, k := range rules {
		if documented[k] != "" {
			t.Logf("%s: %d (documented: %s)", k, counts[k], documented[k])
			continue
		}
		t.Errorf("false positive on the real corpus: %s ×%d, e.g. …%s…", k, counts[k], examples[k])
	}
	t.Logf("%d corpus lines", len(lines))
}
