package fakemodel

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
)

// Protocol names one of the four wire protocols the server speaks.
type Protocol string

// The protocols, named after the API each one imitates.
const (
	Anthropic       Protocol = "anthropic"        // POST /v1/messages (Claude Code)
	OpenAIResponses Protocol = "openai-responses" // POST /v1/responses (codex)
	OpenAIChat      Protocol = "openai-chat"      // POST /v1/chat/completions (opencode)
	Gemini          Protocol = "gemini"           // POST /v1beta/models/M:streamGenerateContent (Gemini CLI)
)

func (p Protocol) valid() bool {
	switch p {
	case Anthropic, OpenAIResponses, OpenAIChat, Gemini:
		return true
	}
	return false
}

// declaredTool is a tool the CLI offered the model in its request.
type declaredTool struct {
	name string
	// custom is true for Responses "custom" tools (free-form input, such as
	// codex's apply_patch), false for JSON-schema function tools.
	custom bool
	// props maps the property names of the tool's argument schema to their
	// JSON types ("string", "array", ...; empty when the schema gives none).
	props map[string]string
}

// request is what the server needs to know about a model request.
type request struct {
	protocol Protocol
	model    string
	stream   bool
	// includeUsage is Chat's stream_options.include_usage.
	includeUsage bool
	tools        []declaredTool
	toolResults  int
	workdir      string
	// first is the raw JSON of the request's first user message, which
	// tells a subagent's conversation from the main one.
	first string
}

// side reports whether the request is a side call (no tools declared), such
// as a title generation, rather than a step of the agent loop.
func (r *request) side() bool { return len(r.tools) == 0 }

func (r *request) tool(name string) (declaredTool, bool) {
	for _, t := range r.tools {
		if t.name == name {
			return t, true
		}
	}
	return declaredTool{}, false
}

func schemaProps(schema gjson.Result) map[string]string {
	props := map[string]string{}
	schema.Get("properties").ForEach(func(k, v gjson.Result) bool {
		props[k.String()] = strings.ToLower(v.Get("type").String())
		return true
	})
	return props
}

// parseRequest reads the parts of a request body that pick and shape the
// answer. The body must be JSON.
func parseRequest(p Protocol, body []byte, model string) (*request, error) {
	if !gjson.ValidBytes(body) {
		return nil, fmt.Errorf("%s request body is not valid JSON", p)
	}
	root := gjson.ParseBytes(body)
	r := &request{protocol: p, model: model, stream: root.Get("stream").Bool()}
	switch p {
	case Anthropic:
		r.model = root.Get("model").String()
		root.Get("tools").ForEach(func(_, t gjson.Result) bool {
			r.tools = append(r.tools, declaredTool{name: t.Get("name").String(), props: schemaProps(t.Get("input_schema"))})
			return true
		})
		r.first = root.Get("messages.0").Raw
		root.Get("messages").ForEach(func(_, m gjson.Result) bool {
			if m.Get("role").String() == "user" {
				m.Get("content").ForEach(func(_, c gjson.Result) bool {
					if c.Get("type").String() == "tool_result" {
						r.toolResults++
					}
					return true
				})
			}
			return true
		})
	case OpenAIResponses:
		r.model = root.Get("model").String()
		root.Get("tools").ForEach(func(_, t gjson.Result) bool {
			switch t.Get("type").String() {
			case "function":
				r.tools = append(r.tools, declaredTool{name: t.Get("name").String(), props: schemaProps(t.Get("parameters"))})
			case "custom":
				r.tools = append(r.tools, declaredTool{name: t.Get("name").String(), custom: true})
			default:
				// Hosted tools (web_search, local_shell, ...) have no name to call
				// with; keep the type so that a request offering only those is still
				// told apart from a tool-less side call.
				r.tools = append(r.tools, declaredTool{name: t.Get("type").String()})
			}
			return true
		})
		r.first = root.Get(`input.#(role=="user")`).Raw
		root.Get("input").ForEach(func(_, it gjson.Result) bool {
			switch it.Get("type").String() {
			case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
				r.toolResults++
			}
			return true
		})
	case OpenAIChat:
		r.model = root.Get("model").String()
		r.includeUsage = root.Get("stream_options.include_usage").Bool()
		root.Get("tools").ForEach(func(_, t gjson.Result) bool {
			r.tools = append(r.tools, declaredTool{name: t.Get("function.name").String(), props: schemaProps(t.Get("function.parameters"))})
			return true
		})
		r.first = root.Get(`messages.#(role=="user")`).Raw
		root.Get("messages").ForEach(func(_, m gjson.Result) bool {
			if m.Get("role").String() == "tool" {
				r.toolResults++
			}
			return true
		})
	case Gemini:
		root.Get("tools").ForEach(func(_, group gjson.Result) bool {
			group.Get("functionDeclarations").ForEach(func(_, f gjson.Result) bool {
				schema := f.Get("parametersJsonSchema")
				if !schema.Exists() {
					schema = f.Get("parameters")
				}
				r.tools = append(r.tools, declaredTool{name: f.Get("name").String(), props: schemaProps(schema)})
				return true
			})
			return true
		})
		r.first = root.Get("contents.0").Raw
		root.Get("contents").ForEach(func(_, c gjson.Result) bool {
			c.Get("parts").ForEach(func(_, part gjson.Result) bool {
				if part.Get("functionResponse").Exists() {
					r.toolResults++
				}
				return true
			})
			return true
		})
	default:
		return nil, fmt.Errorf("unknown protocol %q", p)
	}
	r.workdir = findWorkdir(body)
	return r, nil
}

// Each CLI states its working directory somewhere in the prompt it sends;
// these find it in the raw (JSON-escaped) body. A path runs to the end of
// its line (an escaped newline), a quote or a '<'; it may hold spaces.
var workdirPatterns = []*regexp.Regexp{
	regexp.MustCompile(`<cwd>(/[^<"\\]+)</cwd>`),                                    // codex environment_context
	regexp.MustCompile(`Workspace Directories:\*\*\\n\s*- (/[^"\\]+)`),              // Gemini CLI session context
	regexp.MustCompile(`Primary working directory: (/[^"\\<]*[^"\\<\s])`),           // Claude Code env section
	regexp.MustCompile(`(?i)working directory:\s*(?:<[^>]*>)?(/[^"\\<]*[^"\\<\s])`), // opencode and others
}

func findWorkdir(body []byte) string {
	for _, re := range workdirPatterns {
		if m := re.FindSubmatch(body); m != nil {
			return strings.TrimRight(string(m[1]), "/")
		}
	}
	return ""
}
