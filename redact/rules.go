package redact

import (
	"bytes"
	"regexp"
	"slices"
	"sync"
)

// A rule finds one kind of secret in a piece of text.
//
// Every rule has literal keywords: the regexp runs only when the text
// contains at least one of them, so text without any keyword costs a few
// bytes.Index calls and no regexp work. Keywords are matched exactly unless
// fold is set, in which case ASCII case is ignored.
type rule struct {
	id       string
	keywords [][]byte
	fold     bool
	re       *regexp.Regexp
	// group is the submatch that is replaced (0 = the whole match). Rules
	// that need context (a header name, "password=") keep the context
	// visible and replace only the value.
	group int
	// leftEdge requires that the byte before the replaced span is not an
	// identifier byte, so "disk-…" does not become an "sk-…" key. Done in
	// code because a leading \b would slow every regexp down.
	leftEdge bool
	// rightEdge requires the byte after the span not to be an identifier byte.
	rightEdge bool
	// mixed requires the span to contain a digit and a letter, which real
	// keys do and long kebab-case identifiers do not.
	mixed bool
	// accept, when set, vetoes a match after the regexp found it.
	accept func(text []byte, m []int) bool
	// extra, when set, finds more spans from the matches of this rule (used
	// for AWS secret keys that sit next to an access key id).
	extra func(text []byte, span [2]int) (int, int, bool)
	// extraID is the rule id reported for spans found by extra.
	extraID string

	// scan, when set, finds the spans in code instead of re, which then
	// only describes the rule (Rules): a leading unbounded name class
	// costs a regexp a pass per byte.
	scan func(text []byte) [][2]int

	// upstream marks a rule of the upstream set (upstream.go): its
	// secret is chosen, and vetoed, by upstreamSecret; group -1 means the
	// first group that matched.
	upstream    bool
	entropy     float64
	allows      []allowTest
	description string
	rawRegex    string
	// maxLen, when set, bounds a match's length: the rule runs on windows
	// around its keywords (windowedMatchesIn).
	maxLen int
	chunk  int // longest input the regexp still backtracks on
	// required are literals one of which every match contains.
	required [][]byte
	// anchored, when set, is the rule without its optional lead-in,
	// anchored, run at each of anchorLits on anchorLen bytes.
	anchored   *regexp.Regexp
	anchorLits [][]byte
	// anchorLive are the anchor literals a match can start with
	// (liveAnchors): anchoredMatches looks for these only.
	anchorLive [][]byte
	anchorLen  int
	anchorWord bool // a \b led the regexp
	// atKeyword, when set, is re anchored (^…), for a rule whose regexp
	// starts with its keywords (case ignored): every match starts at a
	// keyword, so keywordMatches tries it only there (keywordRule).
	atKeyword *regexp.Regexp

	// compile, when set, builds what matching needs (re, anchored,
	// chunk) and is run once, by ready, before the rule first matches
	// (upstream rules: see buildUpstream).
	compile  func()
	compiled sync.Once
}

// ready builds the rule's matcher if it is built lazily. Rules are
// shared by every Redactor, so it is safe for concurrent use.
func (ru *rule) ready() {
	if ru.compile != nil {
		ru.compiled.Do(ru.compile)
	}
}

// keywordRule marks a case-insensitive rule whose regexp begins with an
// alternation of its keywords. Go's regexp has no literal prefix to skip
// to under (?i), so FindAll tried a match at every byte, folding each
// (unicode.SimpleFold): on prose full of "token" and "password" that was
// most of a stream's time. Run anchored at each keyword instead.
func keywordRule(ru *rule) *rule {
	ru.atKeyword = regexp.MustCompile(`^(?:` + ru.re.String() + `)`)
	return ru
}

// hasFoldVariant reports bytes that (?i) matches as an ASCII letter but
// ASCII folding does not: the long s (U+017F, as s) and the Kelvin sign
// (U+212A, as k), the only non-ASCII members of ASCII letters' case
// orbits. Without them, ASCII-folded keyword search finds every place a
// (?i) keyword can match.
func hasFoldVariant(text []byte) bool {
	return bytes.Contains(text, []byte("\u017f")) || bytes.Contains(text, []byte("\u212a"))
}

// keywordWindow is how much text after a keyword keywordMatches gives the
// anchored regexp at first; a match that reaches the window's end, or a
// window that ends in blanks the regexp may still be crossing, is tried
// again on the rest of the text.
const keywordWindow = 4096

// keywordMatches is FindAllSubmatchIndex for a keywordRule: the anchored
// regexp at each keyword occurrence, left to right, skipping occurrences
// inside the previous match, as FindAll resumes after a match.
func (ru *rule) keywordMatches(text []byte) [][]int {
	return ru.keywordMatchesIn(text, nil)
}

// keywordMatchesIn is keywordMatches finding the keywords with lits.
func (ru *rule) keywordMatchesIn(text []byte, lits *litFinder) [][]int {
	var occ []int
	for _, k := range ru.keywords {
		occ = lits.appendAll(occ, text, k)
	}
	slices.Sort(occ)
	occ = slices.Compact(occ)
	var out [][]int
	last := 0
	for _, p := range occ {
		if p < last {
			continue
		}
		end := min(len(text), p+keywordWindow)
		m := ru.atKeyword.FindSubmatchIndex(text[p:end])
		if end < len(text) && (m != nil && p+m[1] == end || m == nil && blankTail(text[p:end])) {
			m = ru.atKeyword.FindSubmatchIndex(text[p:])
		}
		if m == nil {
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += p
			}
		}
		last = m[1]
		out = append(out, m)
	}
	return out
}

// blankTail reports a window that ends in whitespace, quotes or
// backslashes, which a keywordRule's regexp may still be crossing.
func blankTail(b []byte) bool {
	n := 0
	for i := len(b) - 1; i >= 0 && n < 64; i-- {
		switch b[i] {
		case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '\\', ':', '=':
			n++
			continue
		}
		return false
	}
	return true
}

func kw(words ...string) [][]byte {
	out := make([][]byte, len(words))
	for i, w := range words {
		out[i] = []byte(w)
	}
	return out
}

// Built-in rule ids. They are stable: they appear in replacement tokens and
// in ledgers of checked-in fixtures.
const (
	RuleAnthropic    = "anthropic-key"
	RuleOpenAI       = "openai-key"
	RuleGitHubToken  = "github-token"
	RuleGitHubPAT    = "github-fine-grained-pat"
	RuleGitLab       = "gitlab-pat"
	RuleAWSKeyID     = "aws-access-key-id"
	RuleAWSSecret    = "aws-secret-key"
	RuleGoogle       = "google-api-key"
	RuleSlack        = "slack-token"
	RuleStripe       = "stripe-key"
	RuleHuggingFace  = "huggingface-token"
	RuleNPM          = "npm-token"
	RulePyPI         = "pypi-token"
	RuleSendGrid     = "sendgrid-key"
	RuleVault        = "vault-token"
	RuleGroq         = "groq-key"
	RuleDockerPAT    = "docker-pat"
	RuleAgeKey       = "age-secret-key"
	RuleJWT          = "jwt"
	RulePrivateKey   = "private-key-block"
	RuleAuthHeader   = "authorization-header"
	RuleURLPassword  = "url-password"
	RuleAssignment   = "secret-assignment"
	RuleSensitiveKey = "sensitive-json-key"
	RuleEnvValue     = "env-value"
	RuleRespHeader   = "response-header"
	RuleBinary       = "binary"
	RuleBase64Blob   = "base64-blob"
	RuleLargeString  = "large-string"
	RulePathHome     = "path-home"
	RulePathProject  = "path-project"
	RulePathTemp     = "path-temp"
)

// builtinRules returns the secret rules in priority order: when two rules
// match at the same offset with the same length, the earlier one wins, so
// specific rules come before generic ones: this package's own rules, then
// the upstream set (upstream.go), then the generic credential assignment.
//
// Rules are immutable once built, so every Redactor shares one list.
func builtinRules() []*rule { return sharedRules() }

var sharedRules = sync.OnceValue(func() []*rule {
	out := ownRules()
	out = append(out, envCredentialRules()...)
	up, _ := upstreamRules() // New reports the error
	var generic []*rule
	for _, ru := range up {
		switch {
		case upstreamLeftOut[ru.id] != "":
		case ru.id == "generic-api-key":
			generic = append(generic, ru) // after ours, which names the kind better
		default:
			out = append(out, ru)
		}
	}
	out = append(out, credentialAssignmentRule())
	return append(out, generic...)
})

func ownRules() []*rule {
	return []*rule{
		{id: RuleAnthropic, keywords: kw("sk-ant-"), re: regexp.MustCompile(`sk-ant-[A-Za-z0-9_-]{20,}`), leftEdge: true, mixed: true},
		{id: RuleOpenAI, keywords: kw("sk-"), re: regexp.MustCompile(`sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`), leftEdge: true, mixed: true,
			accept: func(text []byte, m []int) bool { return !bytes.HasPrefix(text[m[0]:], []byte("sk-ant-")) }},
		{id: RuleGitHubToken, keywords: kw("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), re: regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{36,}`), leftEdge: true, rightEdge: true},
		{id: RuleGitHubPAT, keywords: kw("github_pat_"), re: regexp.MustCompile(`github_pat_[A-Za-z0-9_]{22,}`), leftEdge: true},
		{id: RuleGitLab, keywords: kw("glpat-"), re: regexp.MustCompile(`glpat-[A-Za-z0-9_-]{20,}`), leftEdge: true},
		// AWS key ids are AKIA (long-term) or ASIA (temporary) and sixteen
		// base-32 characters (A-Z, 2-7). Some ids hold no digit at all, so
		// the edges, not a digit, keep words such as "ASIAN…" out.
		{id: RuleAWSKeyID, keywords: kw("AKIA", "ASIA"), re: regexp.MustCompile(`(?:AKIA|ASIA)[A-Z2-7]{16}`), leftEdge: true, rightEdge: true,
			extra: awsSecretNear, extraID: RuleAWSSecret},
		{id: RuleAWSSecret, keywords: kw("secret_access_key", "SECRET_ACCESS_KEY", "SecretAccessKey", "secretAccessKey"),
			re: regexp.MustCompile(`(?i:secret_?access_?key)\\?["']?\s*[:=]\s*\\?["']?([A-Za-z0-9/+]{40})`), group: 1, rightEdge: true},
		{id: RuleGoogle, keywords: kw("AIza"), re: regexp.MustCompile(`AIza[0-9A-Za-z_-]{35}`), leftEdge: true, rightEdge: true},
		{id: RuleSlack, keywords: kw("xox"), re: regexp.MustCompile(`xox[abposre]-[A-Za-z0-9-]{10,}`), leftEdge: true, mixed: true},
		{id: RuleStripe, keywords: kw("sk_live_", "sk_test_", "rk_live_", "rk_test_"), re: regexp.MustCompile(`[sr]k_(?:live|test)_[A-Za-z0-9]{16,}`), leftEdge: true, mixed: true},
		{id: RuleHuggingFace, keywords: kw("hf_"), re: regexp.MustCompile(`hf_[A-Za-z0-9]{30,}`), leftEdge: true, rightEdge: true, mixed: true},
		{id: RuleNPM, keywords: kw("npm_"), re: regexp.MustCompile(`npm_[A-Za-z0-9]{36}`), leftEdge: true, rightEdge: true, mixed: true},
		{id: RulePyPI, keywords: kw("pypi-"), re: regexp.MustCompile(`pypi-[A-Za-z0-9_-]{50,}`), leftEdge: true, mixed: true},
		{id: RuleSendGrid, keywords: kw("SG."), re: regexp.MustCompile(`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`), leftEdge: true},
		{id: RuleVault, keywords: kw("hvs."), re: regexp.MustCompile(`hvs\.[A-Za-z0-9_-]{24,}`), leftEdge: true, mixed: true},
		{id: RuleGroq, keywords: kw("gsk_"), re: regexp.MustCompile(`gsk_[A-Za-z0-9]{40,}`), leftEdge: true, rightEdge: true, mixed: true},
		{id: RuleDockerPAT, keywords: kw("dckr_pat_", "dckr_oat_"), re: regexp.MustCompile(`dckr_[po]at_[A-Za-z0-9_-]{24,}`), leftEdge: true, mixed: true},
		// age secret keys are bech32 in upper case; the body class is wider
		// than bech32's alphabet (any upper-case letter or digit) because
		// the prefix alone is specific, and a key typed or mangled by hand
		// is still a key.
		{id: RuleAgeKey, keywords: kw("AGE-SECRET-KEY-1"), re: regexp.MustCompile(`AGE-SECRET-KEY-1[0-9A-Z]{50,}`), leftEdge: true, rightEdge: true},
		{id: RuleJWT, keywords: kw("eyJ"), re: regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`), leftEdge: true},
		// BEGIN through END; without an END (the text was cut: a tool
		// summary "-----BEGIN … KEY----- MIIE…", a truncated output), BEGIN
		// through the last byte that can be part of the body. The END
		// branch comes first, so it wins wherever an END follows.
		{id: RulePrivateKey, keywords: kw("PRIVATE KEY"),
			re: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----(?:(?:[A-Za-z0-9+/=\s:,.-]|\\[nr])*?-----END[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=\s:,.-]|\\[nr])*)`)},
		keywordRule(&rule{id: RuleAuthHeader, keywords: kw("authorization"), fold: true,
			re:    regexp.MustCompile(`(?i:authorization)\\?["']?\s*[:=]\s*\\?["']?(?i:bearer|basic|token|bot)\s+([A-Za-z0-9._~+/=:-]{6,})`),
			group: 1}),
		{id: RuleURLPassword, keywords: kw("://"), re: regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"'<>]*:([^\s:/@"'<>]+)@`), group: 1,
			accept: func(text []byte, m []int) bool { return !placeholderValue(text[m[2]:m[3]]) }},
		keywordRule(&rule{id: RuleAssignment, keywords: kw("password", "passwd", "secret", "token", "api_key", "apikey", "api-key"), fold: true,
			re:    regexp.MustCompile(`(?i:password|passwd|secret|token|api[_-]?key)(\\?["']?)\s*([:=])\s*(\\?["']?)([^\s"'&,;<>{}()\[\]\\` + "`" + `]{6,})`),
			group: 4, accept: acceptAssignment}),
	}
}

// acceptAssignment keeps "key=value" and quoted "key": "value" forms, but
// for a bare "word: value" (which is also how prose reads: "the secret: it
// works") it asks for a value that looks machine-made. It also requires the
// keyword to start a word or follow "_"/"-", so "mysecret=" is left alone
// while "client_secret=" is not.
func acceptAssignment(text []byte, m []int) bool {
	if m[0] > 0 && isAlpha(text[m[0]-1]) {
		return false
	}
	value := text[m[8]:m[9]]
	if placeholderValue(value) {
		return false
	}
	quotedKey := m[3] > m[2]
	colon := text[m[4]] == ':'
	if colon && !quotedKey {
		return hasDigit(value) || hasUpper(value) && hasLower(value)
	}
	return true
}

// placeholderValue reports values that stand for a secret without being one:
// shell and template references and runs of mask characters.
func placeholderValue(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	switch v[0] {
	case '$', '%', '<', '{', '@':
		return true
	}
	same := true
	for _, c := range v {
		if c != v[0] {
			same = false
			break
		}
	}
	return same
}

// awsSecretNear finds a 40-character AWS secret access key within a short
// distance after an access key id ("AKIA… / wJal…" in a config, a table, an
// env dump). The span must stand alone: not part of a longer base64 run.
func awsSecretNear(text []byte, span [2]int) (int, int, bool) {
	const reach = 120
	end := span[1] + reach
	if end > len(text) {
		end = len(text)
	}
	i := span[1]
	for i < end {
		if !isAWSSecretByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isAWSSecretByte(text[j]) {
			j++
		}
		if j-i == 40 && hasDigit(text[i:j]) && hasUpper(text[i:j]) && hasLower(text[i:j]) {
			return i, j, true
		}
		i = j
	}
	return 0, 0, false
}

func isAWSSecretByte(c byte) bool {
	return isAlnum(c) || c == '/' || c == '+'
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

// isIdentByte is what may continue a token or identifier.
func isIdentByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

func hasDigit(b []byte) bool {
	for _, c := range b {
		if isDigit(c) {
			return true
		}
	}
	return false
}

func hasUpper(b []byte) bool {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

func hasLower(b []byte) bool {
	for _, c := range b {
		if c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains kw, a lower-case ASCII word,
// ignoring ASCII case, without allocating. One pass with a cheap first-byte
// test beats IndexByte here: the first letters of the keywords are common.
func containsFold(s, kw []byte) bool {
	if len(kw) == 0 {
		return true
	}
	first := kw[0]
	for i := 0; i+len(kw) <= len(s); i++ {
		if s[i]|0x20 == first && bytes.EqualFold(s[i:i+len(kw)], kw) {
			return true
		}
	}
	return false
}

// mayMatch is the prefilter.
func (r *rule) mayMatch(text []byte) bool {
	for _, k := range r.keywords {
		if r.fold {
			if containsFold(text, k) {
				return true
			}
		} else if bytes.Contains(text, k) {
			return true
		}
	}
	return false
}
