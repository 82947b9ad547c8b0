package redact

import (
	"bytes"
	"regexp"
	"strings"
)

// DefaultMaxString is the length (decoded bytes) above which a JSON string
// is cut to a head and a tail.
const DefaultMaxString = 64 << 10

// Options configure a Redactor. Paths are the real values of the recording
// machine, passed in by the caller; the package never looks them up itself.
type Options struct {
	Home    string   // home directory → <HOME>
	Project string   // project root → <PROJECT>
	Temp    []string // temp directories → <TMP>

	// MaxString is the longest JSON string kept whole, in decoded bytes:
	// 0 means DefaultMaxString, a negative value disables cutting.
	MaxString int

	Config Config
}

// Finding is one ledger entry: a rule changed Count spans in the string at
// Pointer, OriginalLength bytes in all (decoded bytes, before
// replacement). It never holds the secret nor anything derived from it.
// The JSON names match the envelope's redactions ledger.
type Finding struct {
	Rule string `json:"rule"`
	// Pointer is the RFC 6901 JSON pointer of the string that held the
	// spans, built from already-redacted keys; "" for text that is not JSON
	// (and for the root value).
	Pointer        string `json:"pointer"`
	Count          int    `json:"count"`
	OriginalLength int    `json:"originalLength"`
}

// Redactor applies the rules. It is safe for concurrent use and immutable
// after New but for one thing: Text remembers that a private key block
// began and has not ended (see keyLines), so that a key given to it one
// line per call loses its body lines too. So goroutines may share one
// Redactor for JSON, JSONVisit, Line, Scan, TextValue and Chunks (each
// call keeps its scratch to itself: pooled walk state, the rules' matchers
// built once under sync.Once), while the Text calls of one stream of
// lines belong on one goroutine, in order. A Stream is not safe for
// concurrent use: one block's deltas are pushed in order by one goroutine.
type Redactor struct {
	rules     []*rule
	disabled  map[string]bool
	allow     map[string]bool
	allowRe   []*regexp.Regexp
	paths     []pathNeedle
	maxString int
	blobMin   int
	minLen    int
	sensitive map[string]bool
	safeHdrs  map[string]bool
	intern    map[string]string
	// keywords finds every rule keyword and path needle in one pass.
	keywords *keywordSet
	// kwLits holds the texts of keywords' keywords, ASCII lower case
	// (litFinder).
	kwLits map[string]bool
	// needleBase is the bit of the first path needle in what keywords
	// finds, or -1 when the needles share pathsBit only.
	needleBase int
	// credPrio is the bit of credential-assignment in what keywords
	// finds, whose keywords are the credential words, or -1 when it has
	// none (disabled, or past maxFiltered).
	credPrio int
	// holdLits begin secrets: a Stream holds a tail that holds one.
	holdLits []holdLit
	holdIdx  holdIndex
	// keyLines is Text's memory of an open private key block.
	keyLines keyLines
	// off is disabled's answer for the rules asked about per string or
	// per text (a map look-up each time was about a per cent of sanitize).
	off ruleOff
}

// ruleOff says which of the rules checked on every string are disabled.
type ruleOff struct {
	binary, blob, large, home, env, respHeader, sensitiveKey, cred, privateKey bool
}

// New builds a Redactor. It fails only on an invalid Config.
func New(opts Options) (*Redactor, error) {
	if _, err := upstreamRules(); err != nil {
		return nil, err
	}
	if err := opts.Config.check(); err != nil {
		return nil, err
	}
	r := &Redactor{
		disabled:  map[string]bool{},
		allow:     map[string]bool{},
		maxString: opts.MaxString,
		blobMin:   1024,
		minLen:    4,
		sensitive: sensitiveKeys(),
		safeHdrs:  safeHeaders(),
	}
	r.intern = internKeys(r.sensitive, r.safeHdrs)
	if opts.Config.MaxString != 0 {
		r.maxString = opts.Config.MaxString
	}
	if r.maxString == 0 {
		r.maxString = DefaultMaxString
	}
	for _, id := range opts.Config.Disable {
		r.disabled[id] = true
	}
	r.off = ruleOff{binary: r.disabled[RuleBinary], blob: r.disabled[RuleBase64Blob], large: r.disabled[RuleLargeString],
		home: r.disabled[RulePathHome], env: r.disabled[RuleEnvValue], respHeader: r.disabled[RuleRespHeader],
		sensitiveKey: r.disabled[RuleSensitiveKey], cred: r.disabled[RuleCredentialAssignment], privateKey: r.disabled[RulePrivateKey]}
	for _, a := range opts.Config.Allow {
		r.allow[a] = true
	}
	for _, a := range opts.Config.AllowRegex {
		r.allowRe = append(r.allowRe, regexp.MustCompile(a))
	}
	for _, c := range opts.Config.Rules {
		if !r.disabled[c.ID] {
			r.rules = append(r.rules, c.compile())
		}
	}
	for _, b := range builtinRules() {
		if !r.disabled[b.id] {
			r.rules = append(r.rules, b)
		}
	}
	for _, n := range buildPaths(opts.Home, opts.Project, opts.Temp) {
		if !r.disabled[n.rule] {
			r.paths = append(r.paths, n)
		}
	}
	r.keywords = r.buildKeywords()
	r.credPrio = -1
	for i, ru := range r.rules[:min(len(r.rules), maxFiltered)] {
		if ru.id == RuleCredentialAssignment && ru.scan != nil {
			r.credPrio = i
		}
	}
	r.holdLits = r.buildHoldLits()
	r.holdIdx = newHoldIndex(r.holdLits)
	return r, nil
}

func (r *Redactor) allowed(s []byte) bool {
	if len(r.allow) > 0 && r.allow[string(s)] {
		return true
	}
	for _, re := range r.allowRe {
		if re.Match(s) {
			return true
		}
	}
	return false
}

// Text redacts text that is not JSON (stderr, a log line, one streamed
// delta on its own). Findings have an empty Pointer. When nothing matches,
// the input slice itself is returned.
//
// After a text that ends inside a private key block (its BEGIN line, and
// no END), later texts that are lines of the block's body, and its END
// line, are replaced whole, up to the END line (keyLines): a caller that
// redacts stderr line by line loses every line of a key.
func (r *Redactor) Text(text []byte) ([]byte, []Finding) {
	return r.applyText(text, r.textKeyLines(text, r.findSpans(text)))
}

// TextValue redacts text that is stored on its own as one JSON string (a
// line that was not JSON, kept as a string payload). It is Text, and also
// cuts text longer than MaxString to a head and a tail around a
// [TRUNCATED:original <n> bytes] marker, as JSON does with a long string
// value, so the string it gives back is one JSON would keep whole. The
// large-string finding's OriginalLength is the whole text's length, as in
// JSON.
func (r *Redactor) TextValue(text []byte) ([]byte, []Finding) {
	if !r.cuts(text) {
		return r.applyText(text, r.findSpans(text))
	}
	var spans []span
	if len(text) >= r.minLen {
		found := r.keywords.scan(text)
		spans = r.findSpansLong(text, &found, nil, true, nil)
	}
	return r.applyText(text, r.truncate(text, spans))
}

// applyText replaces the spans of text and lists them as findings with an
// empty Pointer.
func (r *Redactor) applyText(text []byte, spans []span) ([]byte, []Finding) {
	if len(spans) == 0 {
		return text, nil
	}
	var l ledger
	out := make([]byte, 0, len(text))
	last := 0
	for _, s := range spans {
		out = append(out, text[last:s.start]...)
		out = append(out, s.repl...)
		last = s.end
		n := s.end - s.start
		if s.rule == RuleLargeString {
			n = len(text)
		}
		l.add(s.rule, "", n)
	}
	return append(out, text[last:]...), l.list
}

// JSON redacts one JSON value (one line of a capture) without re-encoding
// it: outside the replaced spans the output is byte-identical to the input,
// keys keep their order and numbers their spelling. It returns an error
// wrapping ErrNotJSON when b is not valid JSON. When nothing matches, the
// input slice itself is returned.
func (r *Redactor) JSON(b []byte) ([]byte, []Finding, error) {
	return r.walkJSON(b, true)
}

// Line redacts one line of a capture: as JSON when it is valid JSON, as
// text otherwise (torn lines, stderr).
func (r *Redactor) Line(b []byte) ([]byte, []Finding) {
	out, f, err := r.walkJSON(b, true)
	if err != nil {
		return r.Text(b)
	}
	return out, f
}

// Scan reports what Line would change, without building the output.
func (r *Redactor) Scan(b []byte) []Finding {
	_, f, err := r.walkJSON(b, false)
	if err != nil {
		return r.scanText(b)
	}
	return f
}

func (r *Redactor) scanText(b []byte) []Finding {
	var l ledger
	for _, s := range r.findSpans(b) {
		l.add(s.rule, "", s.end-s.start)
	}
	return l.list
}

// ledger aggregates findings per rule and pointer, in order of first use.
type ledger struct {
	list []Finding
}

func (l *ledger) add(rule, pointer string, n int) {
	for i := range l.list {
		if l.list[i].Rule == rule && l.list[i].Pointer == pointer {
			l.list[i].Count++
			l.list[i].OriginalLength += n
			return
		}
	}
	l.list = append(l.list, Finding{Rule: rule, Pointer: pointer, Count: 1, OriginalLength: n})
}

// normKey folds a JSON key for the key tables: lower case, with "-" and
// "_" removed, so apiKey, api_key, API-KEY and x-api-key compare as apikey
// and xapikey. Keys that no table knows give "": only known keys matter,
// and looking them up in the intern table keeps the common path free of
// allocations.
func (r *Redactor) normKey(k []byte) string {
	var buf [40]byte
	if len(k) > len(buf) {
		return ""
	}
	if s, ok := r.intern[string(appendFolded(buf[:0], k))]; ok {
		return s
	}
	return ""
}

// foldKey is normKey for any key, allocating.
func foldKey(k []byte) string { return string(appendFolded(nil, k)) }

func appendFolded(dst, k []byte) []byte {
	for _, c := range k {
		if c == '-' || c == '_' {
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// internKeys lists every key the walker compares against.
func internKeys(tables ...map[string]bool) map[string]string {
	m := map[string]string{}
	for _, k := range strings.Fields("env environment responseheaders mediatype mimetype data bytes b64json base64 imagedata") {
		m[k] = k
	}
	for _, t := range tables {
		for k := range t {
			m[k] = k
		}
	}
	return m
}

// sensitiveKeys are JSON keys whose string value is a credential as a whole.
func sensitiveKeys() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`authorization proxyauthorization cookie setcookie xapikey apikey xgoogapikey
		password passwd secret token clientsecret accesstoken refreshtoken idtoken authtoken sessiontoken
		bearertoken privatekey secretkey secretaccesskey awssecretaccesskey xauthtoken`) {
		m[k] = true
	}
	return m
}

// safeHeaders are response headers that carry no credential and help
// debugging, so they stay in error payloads.
func safeHeaders() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`contenttype contentlength contentencoding transferencoding connection date
		server vary cachecontrol retryafter keepalive`) {
		m[k] = true
	}
	return m
}

func (r *Redactor) safeHeader(k string) bool {
	return r.safeHdrs[k] || r.rateLimitHeader(k)
}

// rateLimitHeader reports rate-limit headers, which help to debug retries.
// They are matched by prefix, so the walker keeps the raw key for them.
func (r *Redactor) rateLimitHeader(k string) bool {
	return strings.HasPrefix(k, "xratelimit") || strings.HasPrefix(k, "anthropicratelimit") || strings.HasPrefix(k, "ratelimit")
}

func containsToken(v []byte) bool {
	return bytes.Contains(v, tokenPrefixes[0])
}
