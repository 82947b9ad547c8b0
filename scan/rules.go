package scan

import (
	"regexp"
	"strings"

	"github.com/evcap/evcap/redact"
)

// A rule finds one kind of secret in decoded text. Rule ids are redact's
// where redact has a rule for the same thing, so a finding names the rule
// a user would disable or allowlist in .evcap.toml.
type rule struct {
	id string
	re *regexp.Regexp
	// group is the submatch that is the secret (0: the whole match); the
	// allowlist is tested on it.
	group int
	// ok, when set, vetoes a match (m holds submatch offsets into text).
	ok func(text string, m []int) bool
	// windows, when set, is re.FindAllStringSubmatchIndex(text, -1)
	// found by running re on windows of text only (windows.go); the
	// prefilter's differential tests compare it with the expression.
	windows func(re *regexp.Regexp, text string) [][]int
}

// Rule ids scan reports that redact has no rule of its own for.
const (
	// RuleVolatileID is an id sanitize would replace with a pseudonym.
	RuleVolatileID = "volatile-id"
	// RuleCredential is a value assigned to a name that says it is a
	// credential (PGPASSWORD=…, "client_secret": "…", --api-token …), with
	// a value that looks machine-made.
	RuleCredential = "credential-assignment"
	// RuleNPMAuth is an .npmrc registry credential (_authToken, _auth,
	// _password).
	RuleNPMAuth = "npmrc-auth"
	// RuleProviderKey is an API key of a provider redact has no own rule
	// for (its shape is listed in providerKeys).
	RuleProviderKey = "provider-key"
	// RuleSlackWebhook is a Slack incoming-webhook URL.
	RuleSlackWebhook = "slack-webhook"
	// RuleRemnant is a run of key characters glued to a redaction token:
	// what is left when a redactor replaced only part of a secret (one
	// part of a key split across deltas).
	RuleRemnant = "redaction-remnant"
	// RulePathOtherHome is a home directory of any user
	// (/home/NAME/, /Users/NAME/, C:\Users\NAME\).
	RulePathOtherHome = "path-home-any"
)

func edgeBefore(text string, i int) bool {
	return i == 0 || !isIdent(text[i-1])
}

func edgeAfter(text string, i int) bool {
	return i >= len(text) || !isIdent(text[i])
}

func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// bounded asks for identifier edges on both sides of the secret group.
func bounded(g int) func(string, []int) bool {
	return func(text string, m []int) bool { return edgeBefore(text, m[2*g]) && edgeAfter(text, m[2*g+1]) }
}

// leftBounded asks for an identifier edge before the secret group.
func leftBounded(g int) func(string, []int) bool {
	return func(text string, m []int) bool { return edgeBefore(text, m[2*g]) }
}

func mixedAnd(f func(string, []int) bool) func(string, []int) bool {
	return func(text string, m []int) bool {
		s := text[m[0]:m[1]]
		return f(text, m) && strings.ContainsAny(s, "0123456789") && strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	}
}

// providerKeys are API key shapes with a fixed prefix that redact has no
// rule of its own for. Each is the prefix and the character class and
// length of the rest.
var providerKeys = []string{
	`sk-or-v1-[0-9a-f]{64}`,                        // OpenRouter
	`gsk_[A-Za-z0-9]{48,}`,                         // Groq
	`xai-[A-Za-z0-9]{60,}`,                         // xAI
	`pplx-[A-Za-z0-9]{40,}`,                        // Perplexity
	`r8_[A-Za-z0-9]{36,}`,                          // Replicate
	`tvly-[A-Za-z0-9-]{30,}`,                       // Tavily
	`dop_v1_[0-9a-f]{64}`,                          // DigitalOcean
	`doo_v1_[0-9a-f]{64}`,                          // DigitalOcean OAuth
	`shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}`,           // Shopify
	`dckr_pat_[A-Za-z0-9_-]{27,}`,                  // Docker Hub
	`glc_[A-Za-z0-9+/]{32,}={0,2}`,                 // Grafana Cloud
	`glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}`,             // Grafana service account
	`AGE-SECRET-KEY-1[0-9A-Z]{58}`,                 // age
	`sbp_[0-9a-f]{40}`,                             // Supabase
	`lin_api_[A-Za-z0-9]{40}`,                      // Linear
	`PMAK-[0-9a-f]{24}-[0-9a-f]{34}`,               // Postman
	`dp\.pt\.[A-Za-z0-9]{43}`,                      // Doppler
	`figd_[A-Za-z0-9_-]{40,}`,                      // Figma
	`sq0atp-[A-Za-z0-9_-]{22}`,                     // Square
	`sq0csp-[A-Za-z0-9_-]{43}`,                     // Square OAuth secret
	`dapi[0-9a-f]{32}`,                             // Databricks
	`SK[0-9a-f]{32}`,                               // Twilio API key
	`key-[0-9a-z]{32}`,                             // Mailgun
	`fo1_[A-Za-z0-9_-]{43}`,                        // Fly.io
	`pul-[0-9a-f]{40}`,                             // Pulumi
	`[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}`, // Terraform Cloud
	`nfp_[A-Za-z0-9]{36}`,                          // Netlify
	`sgp_[0-9a-fA-F]{40}`,                          // Sourcegraph
	`whsec_[A-Za-z0-9+/=]{24,}`,                    // Stripe webhook secret
	`ATATT3[A-Za-z0-9_=-]{150,}`,                   // Atlassian API token
	`[0-9]{8,10}:AA[A-Za-z0-9_-]{33}`,              // Telegram bot
	discordExpr,                                    // Discord bot
}

// builtinRules are the secret rules, without the credential-assignment
// rule (assign.go), the machine paths (paths.go) and the volatile ids
// (ids.go).
func builtinRules() []rule {
	rs := []rule{
		{id: redact.RuleAnthropic, re: regexp.MustCompile(`sk-ant-[A-Za-z0-9_-]{20,}`), ok: leftBounded(0)},
		{id: redact.RuleOpenAI, re: regexp.MustCompile(`sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`),
			ok: mixedAnd(func(t string, m []int) bool {
				return edgeBefore(t, m[0]) && !strings.HasPrefix(t[m[0]:], "sk-ant-") && !strings.HasPrefix(t[m[0]:], "sk-or-v1-")
			})},
		{id: redact.RuleGitHubToken, re: regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{36,}`), ok: bounded(0)},
		{id: redact.RuleGitHubPAT, re: regexp.MustCompile(`github_pat_[A-Za-z0-9_]{22,}`), ok: leftBounded(0)},
		{id: redact.RuleGitLab, re: regexp.MustCompile(`gl(?:pat|dt|rt|ptt|cbt|imt|agent|oas)-[A-Za-z0-9_-]{20,}`), ok: leftBounded(0)},
		{id: redact.RuleAWSKeyID, re: regexp.MustCompile(`(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z2-7]{16}`),
			ok: func(t string, m []int) bool { return bounded(0)(t, m) && !strings.HasSuffix(t[m[0]:m[1]], "EXAMPLE") }},
		{id: redact.RuleAWSSecret, re: regexp.MustCompile(`(?i)(?:aws)?_?secret_?(?:access_?)?key(?:_id)?["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})`), group: 1, ok: bounded(1)},
		{id: redact.RuleGoogle, re: regexp.MustCompile(`AIza[0-9A-Za-z_-]{35}`), ok: bounded(0)},
		{id: redact.RuleSlack, re: regexp.MustCompile(`xox[abposre]-[A-Za-z0-9-]{10,}`), ok: mixedAnd(leftBounded(0))},
		{id: RuleSlackWebhook, re: regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}`)},
		{id: redact.RuleStripe, re: regexp.MustCompile(`[srp]k_(?:live|test)_[A-Za-z0-9]{16,}`), ok: mixedAnd(leftBounded(0))},
		{id: redact.RuleHuggingFace, re: regexp.MustCompile(`hf_[A-Za-z0-9]{30,}`), ok: mixedAnd(bounded(0))},
		{id: redact.RuleNPM, re: regexp.MustCompile(`npm_[A-Za-z0-9]{36}`), ok: mixedAnd(bounded(0))},
		{id: RuleNPMAuth, re: regexp.MustCompile(`(?:^|[\s"'/:])_(?:authToken|auth|password)\s*=\s*["']?([^\s"']{6,})`), group: 1,
			ok: func(t string, m []int) bool { return !placeholder(t[m[2]:m[3]]) }},
		{id: redact.RulePyPI, re: regexp.MustCompile(`pypi-[A-Za-z0-9_-]{50,}`), ok: leftBounded(0)},
		{id: redact.RuleSendGrid, re: regexp.MustCompile(`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`), ok: leftBounded(0)},
		{id: redact.RuleVault, re: regexp.MustCompile(`hv[sbr]\.[A-Za-z0-9_-]{24,}`), ok: mixedAnd(leftBounded(0))},
		{id: redact.RuleJWT, re: regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`), ok: leftBounded(0)},
		{id: redact.RulePrivateKey, re: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----`)},
		{id: redact.RuleAuthHeader, re: regexp.MustCompile(`(?i)authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|bot)\s+([A-Za-z0-9._~+/=:-]{8,})`), group: 1,
			ok: func(t string, m []int) bool { return !placeholder(t[m[2]:m[3]]) }},
		{id: redact.RuleAuthHeader, re: regexp.MustCompile(`(?i)(?:^|[^A-Za-z])bearer\s+([A-Za-z0-9._~+/=-]{20,})`), group: 1,
			ok: func(t string, m []int) bool { return !placeholder(t[m[2]:m[3]]) && entropy(t[m[2]:m[3]]) >= 3 }},
		{id: redact.RuleURLPassword, re: regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"'<>]*:([^\s/@"'<>]+)@`), group: 1,
			ok: func(t string, m []int) bool { return !placeholder(t[m[2]:m[3]]) }},
		// user:password@host without a readable scheme (a redactor may have
		// mangled "://…"), for passwords that look generated.
		{id: redact.RuleURLPassword, re: regexp.MustCompile(`[A-Za-z0-9_.>-]:([A-Za-z0-9%._~+!*-]{8,})@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::[0-9]{2,5})?(?:[/\s"'?]|$)`), group: 1,
			ok: func(t string, m []int) bool { return machineMade(t[m[2]:m[3]]) }},
	}
	remnantOK := func(t string, m []int) bool {
		v := t[m[2]:m[3]]
		return entropy(v) >= 3 && strings.ContainsAny(v, "0123456789") && !placeholder(v)
	}
	rs = append(rs,
		rule{id: RuleRemnant, re: regexp.MustCompile(`\[REDACTED:[a-z0-9-]+\]([A-Za-z0-9_+/=-]{10,})`), group: 1, ok: remnantOK},
		rule{id: RuleRemnant, re: regexp.MustCompile(`([A-Za-z0-9+/]{10,})\[REDACTED:[a-z0-9-]+\]`), group: 1, ok: remnantOK},
	)
	for _, p := range providerKeys {
		r := rule{id: RuleProviderKey, re: regexp.MustCompile(p), ok: bounded(0)}
		if p == discordExpr {
			r.windows = discordMatches
		}
		rs = append(rs, r)
	}
	return rs
}

// customRules compiles the rules of .evcap.toml (their "secret" group, when
// there is one, is the secret).
func customRules(c redact.Config) ([]rule, error) {
	var out []rule
	for _, cr := range c.Rules {
		re, err := regexp.Compile(cr.Regex)
		if err != nil {
			return nil, err
		}
		g := 0
		if i := re.SubexpIndex("secret"); i > 0 {
			g = i
		}
		out = append(out, rule{id: cr.ID, re: re, group: g})
	}
	return out, nil
}

// placeholder reports values that stand for a secret without being one:
// references ($X, ${X}, %X%, <x>, {{x}}), runs of one mask character, and
// evcap's own replacement tokens and pseudonyms.
func placeholder(v string) bool {
	if v == "" {
		return true
	}
	switch v[0] {
	case '$', '%', '<', '{', '@', '*', '[':
		return true
	}
	if strings.Contains(v, "${") || strings.Contains(v, "{{") || strings.Contains(v, "[REDACTED") || strings.Contains(v, "<HOME>") ||
		strings.Contains(v, "<PROJECT>") || strings.Contains(v, "<TMP>") {
		return true
	}
	same := true
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			same = false
			break
		}
	}
	if same {
		return true
	}
	low := strings.ToLower(v)
	for _, w := range []string{"xxxx", "****", "your_", "your-", "changeme", "example", "placeholder", "redacted", "dummy"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}
