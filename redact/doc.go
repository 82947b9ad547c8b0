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
//   - Secrets matched by rules (see RuleIDs): provider API keys (Anthropic,
//     OpenAI, GitHub, GitLab, AWS key ids and nearby secret keys, Google,
//     Slack, Stripe, Hugging Face, npm, PyPI, SendGrid, Vault), JWTs, PEM
//     private key blocks, Authorization headers, passwords in URLs and
//     generic password=/secret=/token=/api_key= assignments. Each becomes
//     [REDACTED:<rule-id>]. Rules that need context (a header name, a key)
//     keep the context and replace only the value.
//   - In JSON, whole string values under credential keys (authorization,
//     cookie, set-cookie, x-api-key, api_key/apiKey, password, secret, token,
//     client_secret, …), every string in env/environment maps, and response
//     header values (responseHeaders) other than harmless ones such as
//     content-type and retry-after.
//   - Machine paths given in Options (home, project, temp dirs), longest
//     first, also in file:// URLs and in Claude Code's project-slug form
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
// number spelling and escapes are kept. JSON strings are decoded before
// matching, so a secret right after an escaped "\n" is found, and
// replacement tokens contain no character that needs escaping.
//
// Text inside tokens written earlier is never matched again, so redacting
// twice gives the same bytes as redacting once.
//
// # Streams
//
// A secret split across deltas is found by Redactor.Chunks (all deltas at
// hand) or a Stream (deltas as they arrive, bounded lookahead); both replace
// every piece of it in every delta while keeping the number of deltas.
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
