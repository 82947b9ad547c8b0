// Package redact finds secrets, machine paths and bulky binaries in capture
// data and replaces them with stable tokens, recording what it changed in a
// ledger that never holds the secret itself.
//
// It works on bytes: one JSON value (a capture line), plain text (stderr, a
// torn line) or the deltas of one streamed block. It knows nothing of
// envelopes, files or providers: callers pick the strings to treat as one
// stream and place the ledger entries (Finding) where they belong.
//
// # What is replaced
//
//   - Secrets matched by rules (see RuleIDs and Rules): provider API keys
//     (Anthropic, OpenAI, GitHub, GitLab, AWS key ids and nearby secret
//     keys, Google, Slack, Stripe, Hugging Face, npm, PyPI, SendGrid,
//     Vault, Groq, Docker Hub, age), JWTs, PEM/OpenSSH/PGP private key
//     blocks (BEGIN through END, or through the end of the body when the
//     text was cut before END), Authorization headers, passwords in URLs
//     (also with an empty user, redis://:pw@host), password=/secret=/token=/api_key=
//     assignments, credential env names (env-credential), .npmrc
//     credentials, generic credential assignments (credential-assignment:
//     a credential-named variable, key or flag with a value past a length
//     and entropy threshold), and the text rules of gitleaks' default rule
//     set (upstream.go). Each becomes [REDACTED:<rule-id>]. Rules that need
//     context (a header name, a key) keep the context and replace only the
//     value.
//   - In JSON, whole string values under credential keys (authorization,
//     cookie, set-cookie, x-api-key, api_key/apiKey, password, secret, token,
//     client_secret, …), every string in env/environment maps, and response
//     header values (responseHeaders) other than harmless ones such as
//     content-type and retry-after.
//   - Home directories of any user (/home/<name>, /Users/<name>, /root,
//     <drive>:\Users\<name> and Claude Code's project-slug forms) become
//     <HOME>; the machine paths given in Options (home, project, temp dirs),
//     longest first, also in file:// URLs and in the slug form
//     (/tmp/x/project → -tmp-x-project): <HOME>, <PROJECT>, <TMP>.
//   - Binaries: base64 payloads of data: URLs, base64 "data" fields of
//     image/document blocks and base64 runs of 1 KiB or more become
//     [BINARY:<mime>;<n> bytes] with the decoded size.
//   - JSON strings longer than Options.MaxString (default 64 KiB): the middle
//     is replaced with [TRUNCATED:original <n> bytes], keeping a head and a
//     tail.
//
// Everything else is left byte for byte: the JSON walker splices
// replacements into the original bytes and never re-encodes, so key order,
// number spelling and escapes are kept, and replacement tokens contain no
// character that needs escaping.
//
// # Decoded text
//
// Rules match what a reader reads (decode.go): JSON strings fully
// unescaped (the line prefilter too runs on decoded text when an escape
// could spell a keyword), JSON escapes inside text, and decoded views of
// base64/base64url runs of 16+ characters that decode to printable text
// and of percent-encoding, up to three decodings deep; each hit is mapped
// back onto the bytes that encode it.
//
// Text inside tokens written earlier is never matched again, so redacting
// twice gives the same bytes as redacting once.
//
// Text keeps one piece of state between calls: after a text that ends
// inside a private key block, the body and END lines given to it next are
// replaced whole, so a key redacted one line per call (evcap record's
// stderr) loses every line. Line, JSON and Scan are stateless.
//
// # Streams
//
// A secret split across deltas is found by Redactor.Chunks (all deltas at
// hand) or a Stream (deltas as they arrive); both replace every piece of it
// in every delta while keeping the number of deltas. A Stream releases each
// delta at once unless its tail could still start a secret, and Cut
// releases early without letting a piece of a secret through.
//
// # Config
//
// A repository can add rules, disable rules and allow known-safe strings in
// the [redact] table of .evcap.toml (ParseConfig, LoadConfig):
//
//	[redact]
//	disable     = ["secret-assignment"]     # rule ids that do not run
//	allow       = ["AKIAIOSFODNN7EXAMPLE"]  # exact strings never replaced
//	allow_regex = ['^sk-ant-api03-DOCS']    # RE2; matching text is kept
//	max_string  = 131072                    # longest JSON string kept whole
//
//	[[redact.rules]]
//	id      = "acme-token"                  # lower case, digits, "-"
//	regex   = 'acme_[A-Za-z0-9]{32}'        # RE2; group "secret" limits the span
//	keyword = "acme_"                       # literal every match contains
//
// Unknown keys in [redact] are errors; other tables are ignored. See
// testdata/evcap.example.toml.
//
// # What it does not do
//
// It does not guess paths (the caller passes the recording machine's real
// values), does not pseudonymise ids or timestamps (that is sanitize's
// job), and does not prove absence of secrets: rules find known shapes.
package redact
