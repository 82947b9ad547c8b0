package fakemodel_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/evcap/evcap/fakemodel"
)

// A one-turn scenario served over OpenAI Chat Completions: the request
// declares no tools, so it is a side request and gets the title; one that
// declares tools gets the turn.
func Example() {
	sc, err := fakemodel.LoadScenario(strings.NewReader(`{
		"title": "Greeting",
		"turns": [{"text": "Hello there", "chunks": [6]}]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(fakemodel.New(sc, fakemodel.Options{}))
	defer srv.Close()

	for _, body := range []string{
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"bash"}}]}`,
	} {
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, `"content"`) {
				fmt.Println(line[strings.Index(line, `"delta"`):])
			}
		}
	}
	// Output:
	// "delta":{"role":"assistant","content":""},"finish_reason":null}]}
	// "delta":{"content":"Greeting"},"finish_reason":null}]}
	// "delta":{"role":"assistant","content":""},"finish_reason":null}]}
	// "delta":{"content":"Hello "},"finish_reason":null}]}
	// "delta":{"content":"there"},"finish_reason":null}]}
}
