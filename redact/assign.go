package redact

import (
	"bytes"
	"regexp"
	"strings"
)

// Credential assignments: the most common leak in a capture is not a key
// with a known prefix but an env dump or a config file in a tool output,
// "NAME=value" where only the name says it is a secret.

// Rule ids of the assignment rules.
const (
	// RuleEnvCredential is a value assigned to one of the env names that
	// always hold a credential (PGPASSWORD, MYSQL_PWD, DB_PASS,
	// SECRET_KEY, SECRET_KEY_BASE, ACCESS_KEY, CREDENTIALS, AUTH,
	// ENCRYPTION_KEY, and names ending so).
	RuleEnvCredential = "env-credential"
	// RuleNPMRCAuth is an .npmrc credential (//registry/:_authToken=…,
	// :_auth=…, :_password=…).
	RuleNPMRCAuth = "npmrc-auth"
	// RuleCredentialAssignment is the generic rule: a value assigned to a
	// name made of credential words (pass, pwd, secret, token, key, auth,
	// credential, cookie, session, private), in NAME=value, NAME: value,
	// "name": "value", export NAME=… and --name value forms, or a JSON
	// member with such a key, when the value passes a length and entropy
	// threshold and is not an id, a count, a digest, a path or a
	// placeholder.
	RuleCredentialAssignment = "credential-assignment"
)

// valueChars is what an unquoted credential value is made of.
const valueChars = "[^\\s\"'`,;&<>{}()\\[\\]\\\\]"

func envCredentialRules() []*rule {
	names := `PGPASSWORD|MYSQL_PWD|MYSQL_PASSWORD|MYSQL_ROOT_PASSWORD|POSTGRES_PASSWORD|DB_PASS(?:WORD)?|SECRET_KEY_BASE|SECRET_KEY|ACCESS_KEY|CREDENTIALS|AUTH|ENCRYPTION_KEY`
	return []*rule{
		{id: RuleEnvCredential,
			keywords: kw("PGPASSWORD", "MYSQL_", "POSTGRES_PASSWORD", "DB_PASS", "SECRET_KEY", "ACCESS_KEY", "CREDENTIALS", "AUTH", "ENCRYPTION_KEY"),
			re:       regexp.MustCompile(`(?:^|[^A-Za-z0-9])(?:[A-Z0-9]+_)*(?:` + names + `)(["']?)[ \t]*(=|:)[ \t]*(["']?)(` + valueChars + `{4,})`),
			group:    4, accept: func(text []byte, m []int) bool {
				return acceptValue(text[m[8]:m[9]], true, m[3] > m[2] || m[7] > m[6] || text[m[4]] == '=')
			}},
		{id: RuleNPMRCAuth, keywords: kw(":_auth", ":_password"),
			re:    regexp.MustCompile(`:_(?:authToken|auth|password)[ \t]*=[ \t]*["']?(` + valueChars + `{6,})`),
			group: 1, accept: func(text []byte, m []int) bool { return !placeholderValue(text[m[2]:m[3]]) }},
	}
}

var credentialWords = []string{"pass", "pwd", "secret", "token", "key", "auth", "credential", "cookie", "session", "private"}

func credentialAssignmentRule() *rule {
	name := `[A-Za-z0-9_.-]*(?i:pass|pwd|secret|token|key|auth|credential|cookie|session|private)[A-Za-z0-9_.-]*`
	// The regexp describes the rule for Rules; scanAssignments finds the
	// same forms in code.
	re := regexp.MustCompile(`(` + name + `)\\?(["']?)[ \t]*(=|:=|:|=>)[ \t]*\\?(["']?)(` + valueChars + `+)` +
		`|--(` + name + `)(?:=|[ \t]+)["']?(` + valueChars + `+)`)
	return &rule{id: RuleCredentialAssignment, keywords: kw(credentialWords...), fold: true, re: re, scan: scanAssignments}
}

// credentialPair reports whether a credential word can start at a byte
// pair: the first two letters of each of credentialWords, in either case
// (hasPrefixFold matches ASCII letters only: every Unicode fold of these
// letters is longer than a byte), so that most positions of a text are
// passed over without comparing each word. TestCredentialPair keeps it
// in step with the list.
func credentialPair(a, b byte) bool {
	b |= 0x20
	switch a | 0x20 {
	case 'p':
		return b == 'a' || b == 'w' || b == 'r'
	case 's', 'k':
		return b == 'e'
	case 't', 'c':
		return b == 'o' || a|0x20 == 'c' && b == 'r'
	case 'a':
		return b == 'u'
	}
	return false
}

func isNameChar(c byte) bool { return isAlnum(c) || c == '_' || c == '.' || c == '-' }

func isValueChar(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '`', ',', ';', '&', '<', '>', '{', '}', '(', ')', '[', ']', '\\':
		return false
	}
	return true
}

// scanAssignments finds the values of credential assignments: around every
// credential word, the name it is part of, then a separator and a value
// (NAME=value, NAME: value, "name": "value", NAME := value, --name value,
// --name=value), vetted by credentialName and acceptValue.
func scanAssignments(text []byte) [][2]int {
	var out [][2]int
	done := 0 // names end before this offset were looked at
	for i := 0; i+1 < len(text); i++ {
		if i < done || !credentialPair(text[i], text[i+1]) {
			continue
		}
		hit := false
		for _, w := range credentialWords {
			if hasPrefixFold(text[i:], w) {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		ns := i
		for ns > 0 && isNameChar(text[ns-1]) {
			ns--
		}
		ne := i
		for ne < len(text) && isNameChar(text[ne]) {
			ne++
		}
		done = ne
		if s, e, ok := assignmentValue(text, ns, ne); ok {
			out = append(out, [2]int{s, e})
			done = e
			i = e - 1
		}
	}
	return out
}

// assignmentValue parses what follows the name text[ns:ne].
func assignmentValue(text []byte, ns, ne int) (int, int, bool) {
	name := text[ns:ne]
	flag := len(name) > 2 && name[0] == '-' && name[1] == '-'
	if flag {
		name = name[2:]
	} else {
		for len(name) > 0 && (name[0] == '-' || name[0] == '.') {
			name = name[1:]
		}
	}
	strength := credentialName(name)
	if strength == 0 {
		return 0, 0, false
	}
	j := ne
	quoted := flag
	skipQuote := func() {
		if j < len(text) && text[j] == '\\' && j+1 < len(text) && (text[j+1] == '"' || text[j+1] == '\'') {
			j++
		}
		if j < len(text) && (text[j] == '"' || text[j] == '\'') {
			j++
			quoted = true
		}
	}
	spaces := func() int {
		k := j
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		return j - k
	}
	if flag {
		if j < len(text) && text[j] == '=' {
			j++
		} else if spaces() == 0 {
			return 0, 0, false
		}
	} else {
		skipQuote()
		spaces()
		switch {
		case hasPrefixFold(text[j:], ":="), hasPrefixFold(text[j:], "=>"):
			j += 2
			quoted = true
		case j < len(text) && text[j] == '=':
			j++
			quoted = true
		case j < len(text) && text[j] == ':':
			j++
		default:
			return 0, 0, false
		}
		spaces()
	}
	skipQuote()
	s := j
	for j < len(text) && isValueChar(text[j]) {
		j++
	}
	v := trimValue(text[s:j])
	if !acceptValue(v, strength == 2, quoted) {
		return 0, 0, false
	}
	return s, s + len(v), true
}

// nameSegments calls f with each part of a name, split at "_", "-", "."
// and lower-to-upper case changes (apiKeySource → api, Key, Source),
// without allocating; f sees the part as it is spelt.
func nameSegments(name []byte, f func(seg []byte)) {
	start := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			if i > start {
				f(name[start:i])
			}
			start = i + 1
		case c >= 'A' && c <= 'Z' && i > start && name[i-1] >= 'a' && name[i-1] <= 'z':
			f(name[start:i])
			start = i
		}
	}
	if len(name) > start {
		f(name[start:])
	}
}

// notCredentialTail are last name segments that make the value something
// about a credential rather than the credential: its id, count, type,
// where it is kept, when it expires.
var notCredentialTail = wordSet(`id ids uuid guid count counts type types name names path paths file files dir url uri
		source src tokens keys sessions length len size limit limits max min index idx mode format version expiry expires
		expiresat expiresin expiration exp ttl timeout header headers prefix suffix field fields kind hash digest checksum
		sha env var number num at in ms sec secs seconds usage rate policy provider helper store manager location endpoint
		host port method scheme algorithm alg strategy enabled required optional flag option options file cache dur
		duration budget window start end time date created updated used remaining total input output reasoning
		length encoding label title description desc hint help prompt message msg status state error affinity sticky`)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// credentialName rates a name: 2 when a part of it always names a secret
// (password, secret, credential, private, pwd), 1 when it names one only
// with a random-looking value (key, token, auth, cookie, session), 0 when
// it names none (tokenizer, keyboard, session_id, max_tokens).
func credentialName(name []byte) int {
	if len(name) < 3 || len(name) > 128 {
		return 0
	}
	any := false
	for i := 0; i+1 < len(name) && !any; i++ {
		if !credentialPair(name[i], name[i+1]) {
			continue
		}
		for _, w := range credentialWords {
			if hasPrefixFold(name[i:], w) {
				any = true
				break
			}
		}
	}
	if !any {
		return 0
	}
	// The last part first: a name about a credential (session_id,
	// token_count) is the common case, and needs no rating of its parts.
	var last []byte
	nameSegments(name, func(seg []byte) { last = seg })
	var buf [24]byte
	if len(last) == 0 || len(last) <= len(buf) && notCredentialTail[string(lowerInto(buf[:0], last))] {
		return 0
	}
	best := 0
	nameSegments(name, func(seg []byte) {
		if best < 2 {
			if r := credentialSegment(seg); r > best {
				best = r
			}
		}
	})
	return best
}

func lowerInto(dst, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, foldByte(c))
	}
	return dst
}

var (
	strongWords = []string{"password", "passwd", "passphrase", "pwd", "pass", "secret", "secrets", "credential", "credentials",
		"creds", "private", "privatekey"}
	weakWords = []string{"key", "token", "auth", "cookie", "cookies", "session"}
)

func hasSuffixFold(s []byte, w string) bool {
	return len(s) >= len(w) && bytes.EqualFold(s[len(s)-len(w):], []byte(w))
}

func credentialSegment(s []byte) int {
	for _, w := range strongWords {
		if hasSuffixFold(s, w) && !hasSuffixFold(s, "bypass") && !hasSuffixFold(s, "compass") {
			return 2
		}
	}
	for _, w := range weakWords {
		if hasSuffixFold(s, w) {
			return 1
		}
	}
	return 0
}

var (
	uuidRe  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	envName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	lowerID = regexp.MustCompile(`^[a-z]+(?:[_.-][a-z]+)*$`)
	hexRe   = regexp.MustCompile(`^(?:sha(?:1|256|512):)?[0-9a-fA-F]+$`)
)

// acceptValue applies the value thresholds. strong is set when the name
// always names a secret; quoted when the assignment is unambiguous (=,
// a quoted name or value), rather than "word: value", which prose also
// reads as.
func acceptValue(v []byte, strong, quoted bool) bool {
	if len(v) < 4 || placeholderValue(v) {
		return false
	}
	switch strings.ToLower(string(v)) {
	case "true", "false", "null", "none", "nil", "undefined", "yes", "no", "on", "off", "required", "optional",
		"string", "redacted", "hidden", "masked", "changeme", "example", "default", "empty", "unset", "bearer", "basic":
		return false
	}
	if bytes.HasPrefix(v, []byte("[REDACTED:")) || allDigits(v) || uuidRe.Match(v) || envName.Match(v) {
		return false
	}
	switch v[0] {
	case '#', '*', '-', '+', '=':
		// A comment, a mask, a flag: unless the value is long and random,
		// as base64 and generated keys starting with these are.
		if !randomLooking(v) {
			return false
		}
	case '/', '~', '.':
		// A path, unless base64 ('+' and '=' are in no path a tool prints).
		if !randomLooking(v) || !bytes.ContainsAny(v, "+=") {
			return false
		}
	}
	if bytes.Contains(v, []byte("://")) {
		return false // a URL: url-password finds its password
	}
	mixed := hasDigit(v) && (hasUpper(v) || hasLower(v)) || hasUpper(v) && hasLower(v)
	if strong {
		if len(v) < 6 {
			return false
		}
		if !quoted && !mixed {
			return false
		}
		return !lowerID.Match(v) || quoted
	}
	if len(v) < 8 || !mixed || lowerID.Match(v) {
		return false
	}
	if hexRe.Match(v) && (len(v) == 40 || len(v) == 64 || bytes.HasPrefix(v, []byte("sha"))) {
		return false // a git object id or a sha256, under a name such as cache_key
	}
	return shannon(v) >= 3.0
}

// randomLooking is a value too long and too varied to be a word, a flag,
// a path or a comment: 16 bytes or more, letters and digits, and an
// entropy of at least 3.5 bits per byte.
func randomLooking(v []byte) bool {
	return len(v) >= 16 && hasDigit(v) && (hasUpper(v) || hasLower(v)) && shannon(v) >= 3.5
}

func allDigits(v []byte) bool {
	for _, c := range v {
		if !isDigit(c) && c != '.' && c != '_' {
			return false
		}
	}
	return true
}

// trimValue drops sentence punctuation that ends a value in prose.
func trimValue(v []byte) []byte {
	for len(v) > 0 && (v[len(v)-1] == '.' || v[len(v)-1] == ':') {
		v = v[:len(v)-1]
	}
	return v
}
