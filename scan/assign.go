package scan

import (
	"math"
	"regexp"
	"strings"
	"unicode"
)

// The credential-assignment rule: a value given to a name that says it is
// a credential. Names are split into words (at "_", "-", ".", spaces and
// lower-to-upper case changes) and compared word by word, so "max_tokens",
// "author" or "keyboard" are not credential names while "PGPASSWORD",
// "_authToken", "DB_PASS" and "client-secret" are.
//
// Forms: NAME=value, NAME: value, export NAME=value, "name": "value" (in
// JSON that did not parse, and as key and value of parsed JSON, see
// (*fileScan).credentialName and machineMade), --name value and --name=value.

// assignRe finds NAME<sep> in text; the value after the separator is
// taken by assignValue. Names cannot hold the separators, so successive
// matches never swallow the next assignment ("for: PGPASSWORD=…" is two).
var assignRe = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.-]{0,80})["']?[ \t]*[=:]`)

// flagRe finds --name value and --name=value.
var flagRe = regexp.MustCompile(`--([A-Za-z][A-Za-z0-9_-]{1,60})(?:=|[ \t]+)`)

// valueEnd are the bytes that end a value: what ends a shell word or a
// JSON string.
const valueEnd = " \t\r\n\"'&,;<>{}()[]\\`"

// assignValue returns the span of the value that starts at i (after
// spaces and an opening quote).
func assignValue(text string, i int) (int, int) {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '"' || text[i] == '\'') {
		i++
	}
	j := i
	for j < len(text) && !strings.ContainsRune(valueEnd, rune(text[j])) {
		j++
	}
	return i, j
}

// credentialAssignments returns the value spans of credential assignments
// in text.
func credentialAssignments(text string) [][2]int {
	var out [][2]int
	take := func(ns, ne, end int) {
		if !credentialName(text[ns:ne]) {
			return
		}
		s, e := assignValue(text, end)
		if e-s >= 8 && machineMade(text[s:e]) {
			out = append(out, [2]int{s, e})
		}
	}
	assignments(text, func(ns, ne, end int) {
		if ns > 0 && (isIdent(text[ns-1]) || text[ns-1] == ':') {
			// Part of a longer word, or a link of a colon chain
			// (arn:aws:secretsmanager:…), not a name.
			return
		}
		take(ns, ne, end)
	})
	flags(text, take)
	return out
}

// assignments calls f with the name and the end of every match of assignRe
// in text, in order, as FindAllStringSubmatchIndex gives them, found in
// one pass instead: the regexp, whose match can start at any letter, cost
// a pass per position over prose full of colons. A name is the tail of a
// run of name bytes, followed by an optional quote, blanks and the
// separator; the match starts at the first letter or "_" at most 81 bytes
// before the run ends (a longer name cannot reach the separator), and
// ends after the separator, where the next search begins. TestAssignments
// checks it against assignRe.
func assignments(text string, f func(ns, ne, end int)) {
	for i := 0; i < len(text); {
		if !isNameByte(text[i]) {
			i++
			continue
		}
		a := i
		for i < len(text) && isNameByte(text[i]) {
			i++
		}
		b, j := i, i
		if j < len(text) && (text[j] == '"' || text[j] == '\'') {
			j++
		}
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		if j == len(text) || text[j] != '=' && text[j] != ':' {
			continue
		}
		for ns := max(a, b-81); ns < b; ns++ {
			if c := text[ns]; c == '_' || c|0x20 >= 'a' && c|0x20 <= 'z' {
				f(ns, b, j+1)
				i = j + 1
				break
			}
		}
	}
}

// isNameByte is the class of assignRe's name after its first byte.
func isNameByte(c byte) bool {
	return c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// flags is assignments for flagRe: "--", a letter, 1 to 60 bytes of
// letters, digits, "_" and "-", then "=" or blanks (all of them).
func flags(text string, f func(ns, ne, end int)) {
	for i := 0; i+3 < len(text); {
		k := strings.Index(text[i:], "--")
		if k < 0 {
			return
		}
		p := i + k
		i = p + 1
		ns := p + 2
		if ns >= len(text) || text[ns]|0x20 < 'a' || text[ns]|0x20 > 'z' {
			continue
		}
		ne := ns + 1
		for ne < len(text) && isFlagByte(text[ne]) {
			ne++
		}
		if n := ne - ns - 1; n < 1 || n > 60 || ne == len(text) {
			continue
		}
		end := ne
		switch text[ne] {
		case '=':
			end++
		case ' ', '\t':
			for end < len(text) && (text[end] == ' ' || text[end] == '\t') {
				end++
			}
		default:
			continue
		}
		f(ns, ne, end)
		i = end
	}
}

// isFlagByte is the class of flagRe's name after its first letter.
func isFlagByte(c byte) bool {
	return c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// credentialWords are words that name a credential on their own.
var credentialWords = map[string]bool{
	"pass": true, "password": true, "passwd": true, "passphrase": true, "pwd": true, "secret": true, "secrets": true,
	"token": true, "auth": true, "authorization": true, "credential": true, "credentials": true, "creds": true,
	"cookie": true, "private": true, "apikey": true, "privatekey": true, "accesskey": true, "secretkey": true,
	"authtoken": true, "sessiontoken": true, "dsn": true,
}

// credentialParts are substrings that make a one-word name a credential
// name (PGPASSWORD, MYSQLPWD).
var credentialParts = []string{"password", "passwd", "secret", "credential", "apikey", "authtoken", "accesskey", "privatekey"}

// notKeyOwners are words that make "<word> key" an ordinary key: a map key,
// a sort key, a public key.
var notKeyOwners = map[string]bool{
	"cache": true, "sort": true, "primary": true, "foreign": true, "idempotency": true, "partition": true, "public": true,
	"map": true, "hash": true, "lookup": true, "row": true, "group": true, "dedupe": true, "dedup": true, "routing": true,
	"message": true, "object": true, "unique": true, "composite": true, "shard": true, "index": true, "react": true,
	"hot": true, "short": true, "shortcut": true, "press": true, "dict": true, "tool": true,
}

func credentialName(name string) bool {
	name = strings.TrimPrefix(strings.TrimSpace(name), "export ")
	words := splitWords(name)
	for i, w := range words {
		if credentialWords[w] {
			return true
		}
		if w == "key" && i > 0 && !notKeyOwners[words[i-1]] {
			return true
		}
		if len(words) == 1 {
			for _, p := range credentialParts {
				if strings.Contains(w, p) {
					return true
				}
			}
			if strings.HasSuffix(w, "pwd") || strings.HasSuffix(w, "pass") {
				return true
			}
		}
	}
	return false
}

// splitWords lowers a name and splits it into words.
func splitWords(s string) []string {
	var words []string
	var cur []rune
	prev := rune(0)
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ' || r == '/' || r == ':':
			flush()
		case unicode.IsUpper(r):
			if unicode.IsLower(prev) || unicode.IsDigit(prev) {
				flush()
			}
			cur = append(cur, unicode.ToLower(r))
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}

// machineMade reports a value that looks generated rather than written:
// at least 8 characters, not a placeholder, a path or a URL, not a number,
// a boolean or an evcap pseudonym, with both letters and digits (or mixed
// case or symbols) and at least 3 bits of entropy per character.
func machineMade(v string) bool {
	v = strings.Trim(v, `"'`)
	if len(v) < 8 || len(v) > 4096 || placeholder(v) {
		return false
	}
	if pathLike(v) || strings.Contains(v, "://") || strings.HasPrefix(v, "arn:") || isPseudonym(v) {
		return false
	}
	var lower, upper, digit, other bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		case c == '_' || c == '-' || c == '.' || c == '/':
			// Separators of names, not signs of a generated value.
		default:
			other = true
		}
	}
	letters := lower || upper
	if !letters {
		return false
	}
	if !(digit || lower && upper || other && len(v) >= 12) {
		return false
	}
	return entropy(v) >= 3
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var n [256]int
	for i := 0; i < len(s); i++ {
		n[s[i]]++
	}
	h := 0.0
	l := float64(len(s))
	for _, c := range n {
		if c > 0 {
			p := float64(c) / l
			h -= p * math.Log2(p)
		}
	}
	return h
}

// isPseudonym reports the shape of the pseudonyms sanitize writes,
// ^(?:(?:session|uuid|thread)-[0-9]{4,}|[a-z]+_evcap_[0-9]{4,})$, matched
// by hand (it runs on every id); TestIsPseudonymIsTheRegexp holds it to
// that expression.
func isPseudonym(s string) bool {
	for _, p := range [...]string{"session-", "uuid-", "thread-"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return allDigits(rest, 4)
		}
	}
	// [a-z]+ cannot hold the "_" that starts "_evcap_".
	i := strings.IndexByte(s, '_')
	if i <= 0 || !strings.HasPrefix(s[i:], "_evcap_") {
		return false
	}
	for j := range i {
		if s[j] < 'a' || s[j] > 'z' {
			return false
		}
	}
	return allDigits(s[i+len("_evcap_"):], 4)
}

// allDigits reports whether s is at least n ASCII digits.
func allDigits(s string, n int) bool {
	if len(s) < n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// pathLike reports a file path (/etc/app/conf, ./x.pem, ~/.ssh/id): it
// starts like one and every segment is a plain name. A base64 value may
// start with "/" too, but holds "+" or short or odd segments.
func pathLike(v string) bool {
	if !(strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "~/")) {
		return false
	}
	if strings.ContainsAny(v, "+=") {
		return false
	}
	for _, seg := range strings.Split(strings.TrimLeft(v, "./~"), "/") {
		if len(seg) < 2 {
			return false
		}
	}
	return true
}
