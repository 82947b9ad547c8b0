package redact

// RuleSpec describes one built-in secret rule as data, so that a gate
// independent of this engine (evcap scan) can run the same patterns with
// its own matcher, and help texts can list them. The engine itself runs
// the compiled rules, which also apply the checks Checks names.
type RuleSpec struct {
	ID          string
	Source      string // "evcap", or UpstreamSource for the upstream set
	Description string
	// Regex is RE2 syntax (Go regexp).
	Regex string
	// Keywords: every match contains one of them (ASCII case ignored when
	// IgnoreCase); the engine runs Regex only on text that holds one.
	Keywords   []string
	IgnoreCase bool
	// SecretGroup is the submatch replaced: 0 the whole match, -1 the
	// first group that matched, -2 decided in code (see Checks).
	SecretGroup int
	// Entropy is the least Shannon entropy of the secret in bits per
	// byte; 0 means none.
	Entropy float64
	// Checks says in words what the engine checks in code after the
	// regexp matched ("" when nothing).
	Checks string
}

var ownDescriptions = map[string]string{
	RuleAnthropic:            "Anthropic API key (sk-ant-…)",
	RuleOpenAI:               "OpenAI API key (sk-, sk-proj-, sk-svcacct-, sk-admin-)",
	RuleGitHubToken:          "GitHub token (ghp_, gho_, ghu_, ghs_, ghr_)",
	RuleGitHubPAT:            "GitHub fine-grained personal access token",
	RuleGitLab:               "GitLab personal access token",
	RuleAWSKeyID:             "AWS access key id (AKIA…, ASIA…); a 40-character secret key nearby is aws-secret-key",
	RuleAWSSecret:            "AWS secret access key after its name",
	RuleGoogle:               "Google API key (AIza…)",
	RuleSlack:                "Slack token (xox…)",
	RuleStripe:               "Stripe secret or restricted key",
	RuleHuggingFace:          "Hugging Face token",
	RuleNPM:                  "npm access token",
	RulePyPI:                 "PyPI upload token",
	RuleSendGrid:             "SendGrid API key",
	RuleVault:                "HashiCorp Vault service token",
	RuleGroq:                 "Groq API key (gsk_…)",
	RuleDockerPAT:            "Docker Hub personal or organisation access token (dckr_pat_…, dckr_oat_…)",
	RuleAgeKey:               "age encryption secret key (AGE-SECRET-KEY-1…)",
	RuleJWT:                  "JSON Web Token",
	RulePrivateKey:           "PEM, OpenSSH or PGP private key block, BEGIN through END",
	RuleAuthHeader:           "Authorization header credential",
	RuleURLPassword:          "password in a URL's user info (the user may be empty: redis://:pw@host)",
	RuleAssignment:           "password=, secret=, token=, api_key= assignment",
	RuleEnvCredential:        "value of an env name that always holds a credential",
	RuleNPMRCAuth:            ".npmrc registry credential",
	RuleCredentialAssignment: "value assigned to a credential-named variable, key or flag",
}

var ownChecks = map[string]string{
	RuleOpenAI:               "not sk-ant-",
	RuleAssignment:           "keyword starts a word; value not a placeholder; 'word: value' needs a digit or mixed case",
	RuleURLPassword:          "password not a placeholder",
	RuleEnvCredential:        "value thresholds of credential-assignment for a strong name",
	RuleNPMRCAuth:            "value not a placeholder",
	RuleCredentialAssignment: "name made of credential words and not ending in id/count/type/…; value length, entropy ≥ 3.0 (weak names), not a UUID, digest, path, number or placeholder",
}

// Rules lists the built-in secret rules in priority order. Whole-value
// rules that depend on JSON structure (sensitive-json-key, env-value,
// response-header), binaries and paths are not regexps and are not
// listed; RuleIDs has every id.
func Rules() []RuleSpec {
	var out []RuleSpec
	for _, ru := range builtinRules() {
		sp := RuleSpec{ID: ru.id, Source: "evcap", IgnoreCase: ru.fold, SecretGroup: ru.group,
			Entropy: ru.entropy, Description: ownDescriptions[ru.id], Checks: ownChecks[ru.id]}
		if !ru.upstream {
			sp.Regex = ru.re.String()
		}
		for _, k := range ru.keywords {
			sp.Keywords = append(sp.Keywords, string(k))
		}
		if ru.upstream {
			sp.Source, sp.Description, sp.Regex = UpstreamSource, ru.description, ru.rawRegex
			if len(ru.allows) > 0 {
				sp.Checks = "upstream allowlists (regexes, stopwords) on the secret, match or line"
			}
		}
		var edges []string
		if ru.leftEdge {
			edges = append(edges, "no identifier byte before")
		}
		if ru.rightEdge {
			edges = append(edges, "no identifier byte after")
		}
		if ru.mixed {
			edges = append(edges, "holds a digit and a letter")
		}
		for _, e := range edges {
			if sp.Checks != "" {
				sp.Checks += "; "
			}
			sp.Checks += e
		}
		if ru.scan != nil {
			sp.SecretGroup = -2
		}
		out = append(out, sp)
	}
	return out
}
