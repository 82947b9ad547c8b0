package redact

import (
	"regexp"
	"strings"
	"testing"
)

func TestCredentialAssignment(t *testing.T) {
	g := newGen()
	v := g.s(alnum, 24)
	hex := g.s("0123456789abcdef", 64)
	uuid := "5d1c6a0e-2b7f-4c39-9e0a-7f31b2c4d5e6"
	pw := "x" + g.s(alnum, 11)
	plusB64 := "+" + g.s(b64, 47)           // base64 may start with any of its characters
	hashKey := "#" + g.s(alnum+"!#%^", 39)  // and generated keys with punctuation
	slashB64 := "/" + g.s(b64, 38) + "+Q==" // base64, not a path: it holds + and =
	cases := []struct {
		in, want, reason string
	}{
		{"DB_PASSWORD=" + pw, "DB_PASSWORD=[REDACTED:secret-assignment]", "env dump (the older password= rule comes first)"},
		{"MYSQL_PWD=" + pw, "MYSQL_PWD=[REDACTED:env-credential]", "mysql client env"},
		{"export PGPASSWORD='" + pw + "'", "export PGPASSWORD='[REDACTED:env-credential]'", "export with quotes"},
		{"DB_PASS=" + pw, "DB_PASS=[REDACTED:env-credential]", "short name"},
		{"SECRET_KEY=" + v, "SECRET_KEY=[REDACTED:env-credential]", "Django"},
		{"DJANGO_SECRET_KEY=" + v, "DJANGO_SECRET_KEY=[REDACTED:env-credential]", "prefixed name"},
		{"SECRET_KEY_BASE=" + hex, "SECRET_KEY_BASE=[REDACTED:env-credential]", "Rails, hex value"},
		{"ACCESS_KEY=" + v, "ACCESS_KEY=[REDACTED:env-credential]", "access key"},
		{"CREDENTIALS=" + v, "CREDENTIALS=[REDACTED:env-credential]", "credentials"},
		{"AUTH=" + v, "AUTH=[REDACTED:env-credential]", "bare AUTH"},
		{"ENCRYPTION_KEY: " + v, "ENCRYPTION_KEY: [REDACTED:env-credential]", "yaml form"},
		{"//registry.npmjs.org/:_authToken=" + uuid, "//registry.npmjs.org/:_authToken=[REDACTED:npmrc-auth]", ".npmrc token is a UUID"},
		{"session_cookie = " + v, "session_cookie = [REDACTED:credential-assignment]", "generic NAME = value"},
		{`{"db_passphrase": "` + pw + `"}`, `{"db_passphrase": "[REDACTED:credential-assignment]"}`, "JSON member (whole value)"},
		{`cfg: "stripe_webhook_signing_key": "` + v + `"`, `cfg: "stripe_webhook_signing_key": "[REDACTED:credential-assignment]"`, "JSON-ish text"},
		{"deploy --private-key-passphrase " + pw, "deploy --private-key-passphrase [REDACTED:credential-assignment]", "flag with a space"},
		{"deploy --auth-cookie=" + v, "deploy --auth-cookie=[REDACTED:credential-assignment]", "flag with ="},
		{"export MY_APP_AUTH_TOKEN=" + v, "export MY_APP_AUTH_TOKEN=[REDACTED:secret-assignment]", "export (token= is the older rule's)"},
		{"export MY_APP_AUTH=" + v, "export MY_APP_AUTH=[REDACTED:env-credential]", "export of an AUTH name"},
		{"export APP_SESSION_COOKIE=" + v, "export APP_SESSION_COOKIE=[REDACTED:credential-assignment]", "export"},
		{"CREDENTIALS=" + plusB64, "CREDENTIALS=[REDACTED:env-credential]", "a base64 value starting with +"},
		{"Here: SECRET_KEY=" + hashKey + " (keep it)", "Here: SECRET_KEY=[REDACTED:env-credential] (keep it)", "a value starting with #"},
		{"ENCRYPTION_KEY=" + slashB64, "ENCRYPTION_KEY=[REDACTED:env-credential]", "a base64 value starting with /"},
		{`{"CREDENTIALS=` + plusB64 + `":"value"}`, `{"CREDENTIALS=[REDACTED:env-credential]":"value"}`, "in a JSON key"},
		// Not secrets:
		{"SECRET_KEY=#set-me-later", "SECRET_KEY=#set-me-later", "a comment, not random"},
		{"SECRET_KEY=--from-file", "SECRET_KEY=--from-file", "a flag"},
		{"ACCESS_KEY=/etc/app/access-key-2024.pem", "ACCESS_KEY=/etc/app/access-key-2024.pem", "a path (no + or =)"},
		{"SECRET_KEY=***************", "SECRET_KEY=***************", "a mask"},
		{"max_tokens: 4096", "max_tokens: 4096", "a token count"},
		{`"max_tokens": 4096, "input_tokens": 12`, `"max_tokens": 4096, "input_tokens": 12`, "token counts in JSON text"},
		{"token_count=42 tokenizer=cl100k_base", "token_count=42 tokenizer=cl100k_base", "count and tokenizer name"},
		{"cache_key=" + hex, "cache_key=" + hex, "a sha256 under a key name"},
		{"session_id=" + uuid, "session_id=" + uuid, "a UUID used as an id"},
		{"session: " + uuid, "session: " + uuid, "a UUID under a weak name"},
		{"API_KEY=${API_KEY}", "API_KEY=${API_KEY}", "placeholder"},
		{"SECRET_KEY=$SECRET_KEY", "SECRET_KEY=$SECRET_KEY", "shell reference"},
		{"apiKeySource: ANTHROPIC_API_KEY", "apiKeySource: ANTHROPIC_API_KEY", "names the env var, not a key"},
		{"token_type: bearer", "token_type: bearer", "a type"},
		{"the key: it works here", "the key: it works here", "prose"},
		{"keyboard=us-intl-2", "keyboard=us-intl-2", "a word that starts with key"},
		{"AUTH=true", "AUTH=true", "a flag value"},
		{"private_key_path=/etc/ssl/key.pem", "private_key_path=/etc/ssl/key.pem", "a path"},
		{"x-session-affinity: ses_2f3a8c", "x-session-affinity: ses_2f3a8c", "affinity, not a credential"},
	}
	r := testRedactor(t)
	for _, c := range cases {
		got, _ := r.Line([]byte(c.in))
		if string(got) != c.want {
			t.Errorf("%s:\n  in: %s\n got: %s\nwant: %s", c.reason, c.in, got, c.want)
		}
	}
}

func TestRulesTable(t *testing.T) {
	specs := Rules()
	if len(specs) < 200 {
		t.Fatalf("%d rules, want the upstream set too", len(specs))
	}
	up := 0
	for _, s := range specs {
		if _, err := regexp.Compile(s.Regex); err != nil {
			t.Errorf("%s: %v", s.ID, err)
		}
		if len(s.Keywords) == 0 {
			t.Errorf("%s: no keywords", s.ID)
		}
		if s.Source == UpstreamSource {
			up++
		} else if s.Description == "" {
			t.Errorf("%s: no description", s.ID)
		}
		for _, k := range s.Keywords {
			if s.IgnoreCase && k != strings.ToLower(k) && s.Source == UpstreamSource {
				t.Errorf("%s: keyword %q should be lower case", s.ID, k)
			}
		}
	}
	t.Logf("%d rules, %d from %s", len(specs), up, UpstreamSource)
}
