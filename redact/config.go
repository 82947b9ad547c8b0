package redact

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// ConfigFile is the name of the repository config file that Load reads.
const ConfigFile = ".evcap.toml"

// ErrConfig is wrapped by every error about the content of a config file.
var ErrConfig = errors.New("invalid redaction config")

// Config is the [redact] table of .evcap.toml: custom rules, disabled rules
// and an allowlist. The zero Config changes nothing.
type Config struct {
	// Rules are added before the built-in rules, so at the same offset a
	// custom rule wins.
	Rules []CustomRule `toml:"rules"`
	// Disable lists rule ids (built-in or custom) that do not run.
	Disable []string `toml:"disable"`
	// Allow lists exact strings that are never replaced even when a rule
	// matches them (documentation examples, well-known test keys).
	Allow []string `toml:"allow"`
	// AllowRegex lists patterns; a match whose text matches one is kept.
	AllowRegex []string `toml:"allow_regex"`
	// MaxString overrides Options.MaxString when non-zero.
	MaxString int `toml:"max_string"`
}

// CustomRule is a user-defined secret pattern.
type CustomRule struct {
	// ID names the rule in tokens and ledgers: lower case letters, digits
	// and "-", not the id of a built-in rule.
	ID string `toml:"id"`
	// Regex is RE2 syntax. If it has a group named "secret", only that
	// group is replaced; otherwise the whole match is.
	Regex string `toml:"regex"`
	// Keyword is a literal that every match contains; the regexp runs only
	// on text that contains it.
	Keyword string `toml:"keyword"`
}

type configFile struct {
	Redact Config `toml:"redact"`
}

// ParseConfig reads the [redact] table of a TOML document. Other tables
// belong to other parts of evcap and are ignored; unknown keys inside
// [redact] are an error, so a misspelt "disable" does not silently keep a
// rule on.
func ParseConfig(data []byte) (Config, error) {
	var f configFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	for _, k := range md.Undecoded() {
		if len(k) > 0 && k[0] == "redact" {
			return Config{}, fmt.Errorf("%w: unknown key %q", ErrConfig, k.String())
		}
	}
	if err := f.Redact.check(); err != nil {
		return Config{}, err
	}
	return f.Redact, nil
}

// LoadConfig reads a config file. A missing file is not an error: it gives
// the zero Config.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read redaction config: %w", err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

var ruleIDRe = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

func (c Config) check() error {
	builtin := map[string]bool{}
	for _, r := range builtinRules() {
		builtin[r.id] = true
	}
	for _, id := range allRuleIDs() {
		builtin[id] = true
	}
	seen := map[string]bool{}
	for i, cr := range c.Rules {
		switch {
		case !ruleIDRe.MatchString(cr.ID):
			return fmt.Errorf("%w: rules[%d]: id %q must be lower case letters, digits and -", ErrConfig, i, cr.ID)
		case builtin[cr.ID] || seen[cr.ID]:
			return fmt.Errorf("%w: rules[%d]: id %q is already taken", ErrConfig, i, cr.ID)
		case cr.Keyword == "":
			return fmt.Errorf("%w: rules[%d] (%s): keyword is required (it keeps scanning fast)", ErrConfig, i, cr.ID)
		}
		seen[cr.ID] = true
		if _, err := regexp.Compile(cr.Regex); err != nil {
			return fmt.Errorf("%w: rules[%d] (%s): %w", ErrConfig, i, cr.ID, err)
		}
	}
	for _, id := range c.Disable {
		if !builtin[id] && !seen[id] {
			return fmt.Errorf("%w: disable: no rule %q (known: %s)", ErrConfig, id, strings.Join(allRuleIDs(), ", "))
		}
	}
	for i, a := range c.AllowRegex {
		if _, err := regexp.Compile(a); err != nil {
			return fmt.Errorf("%w: allow_regex[%d]: %w", ErrConfig, i, err)
		}
	}
	if c.MaxString < 0 {
		return fmt.Errorf("%w: max_string must not be negative", ErrConfig)
	}
	return nil
}

func (c CustomRule) compile() *rule {
	re := regexp.MustCompile(c.Regex)
	group := max(re.SubexpIndex("secret"), 0)
	return &rule{id: c.ID, keywords: kw(c.Keyword), re: re, group: group}
}

// allRuleIDs lists every built-in rule id, secret rules first.
func allRuleIDs() []string {
	var ids []string
	for _, r := range builtinRules() {
		ids = append(ids, r.id)
	}
	ids = append(ids, RuleSensitiveKey, RuleEnvValue, RuleRespHeader, RuleBinary, RuleBase64Blob, RuleLargeString,
		RulePathHome, RulePathProject, RulePathTemp)
	seen := map[string]bool{}
	return slices.DeleteFunc(ids, func(id string) bool {
		dup := seen[id]
		seen[id] = true
		return dup
	})
}

// RuleIDs returns the ids of the built-in rules, for help texts and for
// checking a config.
func RuleIDs() []string { return allRuleIDs() }
