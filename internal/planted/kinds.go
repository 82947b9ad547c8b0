// Package planted generates the planted-secret matrix: fake secrets of
// many kinds, made at run time from a seeded random source (so no
// secret-shaped string is ever checked in), placed where an agent CLI's
// output carries text (answers, tool input and output, env dumps, JSON
// keys, streamed deltas, non-JSON lines, stderr, argv, and in common
// encodings) inside real line shapes of the four providers, taken from the
// corpus at run time.
//
// It only makes inputs and judges outputs (Survives: does any 12-character
// piece of the secret's random part appear in what a reader of a file
// would see). It does not record, sanitize or scan anything; the tests and
// the benchmark script that use it do.
package planted

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Kind is one kind of secret.
type Kind struct {
	Name string
	// Gen makes one secret: the text as it would be written (a key, an
	// assignment, a URL, a PEM block) and the random parts that must not
	// survive (each at least 12 characters).
	Gen func(r *rand.Rand) (text string, core []string)
}

const (
	alnumChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	hexChars   = "0123456789abcdef"
	b64uChars  = alnumChars + "-_"
	b64Chars   = alnumChars + "+/"
	b32Chars   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

func pick(r *rand.Rand, set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[r.IntN(len(set))]
	}
	// Real keys hold digits and both cases; force one of each so that
	// rules asking for a mix see one.
	if n >= 12 && strings.Contains(set, "7") && strings.Contains(set, "q") && strings.Contains(set, "K") {
		b[1], b[3], b[5] = '7', 'q', 'K'
	}
	return string(b)
}

// one makes a kind whose whole random part follows a fixed prefix.
func one(name, prefix, set string, n int, suffix string) Kind {
	return Kind{Name: name, Gen: func(r *rand.Rand) (string, []string) {
		body := pick(r, set, n)
		return prefix + body + suffix, []string{body}
	}}
}

// assign makes NAME=value kinds (an env dump line).
func assign(name, variable string, set string, n int) Kind {
	return Kind{Name: name, Gen: func(r *rand.Rand) (string, []string) {
		v := pick(r, set, n)
		return variable + "=" + v, []string{v}
	}}
}

func pem(name, label string) Kind {
	return Kind{Name: name, Gen: func(r *rand.Rand) (string, []string) {
		var lines, core []string
		lines = append(lines, "-----BEGIN "+label+"-----")
		for range 8 {
			l := pick(r, b64Chars, 64)
			lines = append(lines, l)
			core = append(core, l)
		}
		last := pick(r, b64Chars, 24) + "=="
		lines = append(lines, last, "-----END "+label+"-----")
		return strings.Join(lines, "\n"), core
	}}
}

func uuid(r *rand.Rand) string {
	h := pick(r, hexChars, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

// Kinds lists the kinds of secret the matrix plants: every provider key
// shape the redaction rules name, the env-dump and config forms of issue
// 13, private keys and URLs with passwords.
func Kinds() []Kind {
	return []Kind{
		one("anthropic-api-key", "sk-ant-api03-", b64uChars, 93, "AA"),
		one("anthropic-admin-key", "sk-ant-admin01-", b64uChars, 93, "AA"),
		{Name: "openai-legacy-key", Gen: func(r *rand.Rand) (string, []string) {
			a, b := pick(r, alnumChars, 20), pick(r, alnumChars, 20)
			return "sk-" + a + "T3BlbkFJ" + b, []string{a, b}
		}},
		one("openai-project-key", "sk-proj-", b64uChars, 156, ""),
		one("openai-svcacct-key", "sk-svcacct-", b64uChars, 120, ""),
		one("github-classic-pat", "ghp_", alnumChars, 36, ""),
		one("github-oauth-token", "gho_", alnumChars, 36, ""),
		one("github-app-token", "ghs_", alnumChars, 36, ""),
		{Name: "github-fine-grained-pat", Gen: func(r *rand.Rand) (string, []string) {
			a, b := pick(r, alnumChars, 22), pick(r, alnumChars, 59)
			return "github_pat_" + a + "_" + b, []string{a, b}
		}},
		one("gitlab-pat", "glpat-", b64uChars, 20, ""),
		one("aws-access-key-id", "AKIA", b32Chars, 16, ""),
		{Name: "aws-secret-access-key", Gen: func(r *rand.Rand) (string, []string) {
			v := pick(r, b64Chars, 40)
			return "aws_secret_access_key = " + v, []string{v}
		}},
		one("google-api-key", "AIza", b64uChars, 35, ""),
		{Name: "slack-bot-token", Gen: func(r *rand.Rand) (string, []string) {
			v := pick(r, alnumChars, 24)
			return fmt.Sprintf("xoxb-%d-%d-%s", 100000000000+r.IntN(9e11), 100000000000+r.IntN(9e11), v), []string{v}
		}},
		{Name: "slack-user-token", Gen: func(r *rand.Rand) (string, []string) {
			v := pick(r, hexChars, 32)
			return fmt.Sprintf("xoxp-%d-%d-%d-%s", 100000000000+r.IntN(9e11), 100000000000+r.IntN(9e11), 100000000000+r.IntN(9e11), v), []string{v}
		}},
		{Name: "slack-webhook", Gen: func(r *rand.Rand) (string, []string) {
			v := pick(r, alnumChars, 24)
			return "https://hooks.slack.com/services/T" + pick(r, b32Chars, 8) + "/B" + pick(r, b32Chars, 10) + "/" + v, []string{v}
		}},
		one("stripe-live-secret", "sk_live_", alnumChars, 24, ""),
		one("stripe-restricted", "rk_live_", alnumChars, 24, ""),
		{Name: "jwt", Gen: func(r *rand.Rand) (string, []string) {
			h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
			p := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"sub":"%s","iat":%d}`, pick(r, alnumChars, 16), 1700000000+r.IntN(1e8))))
			s := pick(r, b64uChars, 43)
			return h + "." + p + "." + s, []string{s}
		}},
		pem("pem-rsa-private-key", "RSA PRIVATE KEY"),
		pem("pem-pkcs8-private-key", "PRIVATE KEY"),
		pem("pem-ec-private-key", "EC PRIVATE KEY"),
		pem("openssh-private-key", "OPENSSH PRIVATE KEY"),
		one("npm-token", "npm_", alnumChars, 36, ""),
		{Name: "npmrc-auth-token", Gen: func(r *rand.Rand) (string, []string) {
			u := uuid(r)
			return "//registry.npmjs.org/:_authToken=" + u, []string{u}
		}},
		one("huggingface-token", "hf_", alnumChars, 34, ""),
		one("pypi-token", "pypi-AgEIcHlwaS5vcmc", b64uChars, 70, ""),
		{Name: "sendgrid-key", Gen: func(r *rand.Rand) (string, []string) {
			a, b := pick(r, b64uChars, 22), pick(r, b64uChars, 43)
			return "SG." + a + "." + b, []string{a, b}
		}},
		one("vault-token", "hvs.", b64uChars, 90, ""),
		{Name: "bearer-header", Gen: func(r *rand.Rand) (string, []string) {
			v := pick(r, b64uChars, 40)
			return "Authorization: Bearer " + v, []string{v}
		}},
		assign("pgpassword", "PGPASSWORD", alnumChars, 20),
		assign("mysql-pwd", "MYSQL_PWD", alnumChars, 20),
		assign("db-pass", "DB_PASS", alnumChars, 20),
		assign("secret-key", "SECRET_KEY", alnumChars+"!#%^", 40),
		assign("secret-key-base", "SECRET_KEY_BASE", hexChars, 128),
		assign("access-key", "ACCESS_KEY", alnumChars, 32),
		assign("credentials", "CREDENTIALS", b64Chars, 48),
		assign("auth", "AUTH", alnumChars, 32),
		assign("encryption-key", "ENCRYPTION_KEY", b64Chars, 44),
		assign("client-secret", "CLIENT_SECRET", alnumChars, 40),
		{Name: "postgres-url", Gen: func(r *rand.Rand) (string, []string) {
			v := pick(r, alnumChars, 20)
			return "postgres://app:" + v + "@db.internal:5432/app", []string{v}
		}},
		{Name: "mysql-url", Gen: func(r *rand.Rand) (string, []string) {
			v := pick(r, alnumChars, 20)
			return "mysql://root:" + v + "@127.0.0.1:3306/shop", []string{v}
		}},
		{Name: "mongodb-srv-url", Gen: func(r *rand.Rand) (string, []string) {
			v := pick(r, alnumChars, 20)
			return "mongodb+srv://svc:" + v + "@cluster0.mongodb.net/db", []string{v}
		}},
		{Name: "redis-url-no-user", Gen: func(r *rand.Rand) (string, []string) {
			v := pick(r, alnumChars, 20)
			return "redis://:" + v + "@cache:6379/0", []string{v}
		}},
		one("digitalocean-token", "dop_v1_", hexChars, 64, ""),
		one("shopify-token", "shpat_", hexChars, 32, ""),
		one("openrouter-key", "sk-or-v1-", hexChars, 64, ""),
		one("groq-key", "gsk_", alnumChars, 52, ""),
		one("age-secret-key", "AGE-SECRET-KEY-1", b32Chars[:26]+"0123456789", 58, ""),
		one("docker-pat", "dckr_pat_", b64uChars, 27, ""),
	}
}
