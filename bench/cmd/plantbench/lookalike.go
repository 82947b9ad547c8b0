package main

import "encoding/json"

// A lookalike is a line that holds no secret but has something of one:
// a credential word, a key-like prefix, a long hex or base64 value, a
// placeholder. The lines are synthetic (each is an assistant text or tool
// output shaped like a Claude line); the corpus itself is the other
// negative set (scan's corpus test).
type lookalike struct {
	name, line string
}

func lookalikes() []lookalike {
	text := func(name, s string) lookalike {
		b, _ := json.Marshal(s)
		return lookalike{name, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":` + string(b) + `}]}}`}
	}
	return []lookalike{
		text("max-tokens", "Set max_tokens: 4096 and temperature: 0.2 in the request."),
		{"token-counts", `{"type":"result","usage":{"input_tokens":1200,"output_tokens":100,"cache_read_input_tokens":4096},"total_tokens":5396}`},
		text("sha256", "sha256sum: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  README.md"),
		text("git-sha", "HEAD is now at 3a68b94e1f2c0d7b8a9e6f5c4d3b2a1908f7e6d5 redact: skip ahead"),
		{"uuid-ids", `{"type":"system","request_id":"80758db8-0f0a-43b5-824b-0851b38d4c98","tool_use_id":"5f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"}`},
		text("env-placeholder", "export OPENAI_API_KEY=${OPENAI_API_KEY} and API_KEY=$API_KEY"),
		text("your-key-here", "export ANTHROPIC_API_KEY=your-api-key-here"),
		text("password-prompt", "password: <your password>"),
		text("aws-doc-example", "The AWS docs use AKIAIOSFODNN7EXAMPLE as the example access key id."),
		text("sklearn", "pip install scikit-learn; the sk-learn name is historic."),
		text("kebab-id", "Wrote disk-usage-report-2024-final-v2-summary.md"),
		text("jwt-header-only", "The header eyJhbGciOiJub25lIn0 decodes to {\"alg\":\"none\"}."),
		text("public-key", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEq8x1wHRbTu3Q0k8Yj2xqJ2w8cW5e\n-----END PUBLIC KEY-----"),
		text("ssh-public-key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHbG3f2k9x8Qm1w7tP0r5sZ3yL6vN4uE2aJ8dC1fK0oT user@laptop"),
		text("url-user-only", "git clone https://octocat@github.com/octocat/hello.git"),
		text("db-url-no-password", "DATABASE_URL=postgres://localhost:5432/app"),
		text("db-url-placeholder", "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app"),
		text("token-count", "token_count=8192 cache_key=session-0001"),
		text("camel-identifier", "Call getAccessTokenFromRefreshTokenHandler2 before retrying."),
		text("bearer-placeholder", "curl -H 'Authorization: Bearer <token>' https://api.example.test"),
		text("env-lookup", "api_key = os.environ['API_KEY']"),
		text("prose-secret", "The secret: it works because the cache is warm."),
		text("go-sum", "golang.org/x/text v0.3.8 h1:nAL+RVCQ9uMn3vJZbV+MRnydTJFPf8qqY42YiA6MrqY="),
		text("npm-integrity", "\"integrity\": \"sha512-Vw8gBvrR1ZL5Rq2Xb0pYpRJ6xVr2mZ0dW9aOqg8cXrD8mJw5tfGZ3nqv0t6M0n1yQ2bLx3yC0f9gM4q2vH8Zkw==\""),
		text("image-digest", "image: ghcr.io/org/app@sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"),
		{"pseudonym-ids", `{"type":"system","session_id":"session-0001","uuid":"uuid-0002","id":"toolu_evcap_0003"}`},
		text("redacted-token", "The key was [REDACTED:anthropic-key] in the log."),
		text("home-placeholder", "Saved to <HOME>/.config/app/settings.json"),
		text("base64-text", "echo SGVsbG8sIHdvcmxkISBUaGlzIGlzIGp1c3QgdGV4dC4= | base64 -d"),
		text("secret-manager-name", "SECRET_NAME=prod/app/database SECRET_ARN=arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/app"),
	}
}
