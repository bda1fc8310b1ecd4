package measure

import (
	"fmt"

	"github.com/latgate/latgate/pkg/config"
	"net/http"
	"net/url"
	"strings"
)

// hint returns advice for the common mistakes behind an HTTP failure, or ""
// (a sentence to append to the failure's message); apiPath is what the
// target's API appends to the base URL ("" for api: sse, whose base URL is
// the endpoint):
//
//   - 401/403 with an empty key: the variable is empty or unset;
//   - 404 on a base URL ending in what latgate appends (/chat/completions,
//     /responses, /messages);
//   - 404 on a base URL ending in /api: Ollama's native API, whose
//     OpenAI-compatible twin is /v1 beside it;
//   - 404 on a base URL without a version (/v1, /v1beta): most servers
//     answer below one;
//   - any other 404: an unknown model name is a 404 on Ollama, vLLM,
//     Anthropic and Gemini.
func hint(status int, ep Endpoint, apiPath string) string {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		if ep.APIKeyEnv == "" {
			return "the target sends no key: set api_key_env to the variable that holds it (or sse.headers_env for another header)"
		}
		if strings.TrimSpace(ep.APIKey) == "" {
			return fmt.Sprintf("$%s is empty or unset: export the key in it, or set api_key_env to the variable that holds it", ep.APIKeyEnv)
		}
		return fmt.Sprintf("check the API key in $%s", ep.APIKeyEnv)
	case http.StatusNotFound:
		if apiPath == "" {
			return fmt.Sprintf("base_url is the URL of the streaming endpoint itself (api: %s): check its path", ep.APIName())
		}
		version := "/v1"
		if ep.APIName() == config.APIGemini {
			version = "/v1beta"
		}
		path := strings.TrimSuffix(urlPath(ep.URL), "/")
		switch {
		case strings.HasSuffix(path, apiPath):
			return fmt.Sprintf("base_url ends in %s, which latgate appends itself: set base_url to the part before it (e.g. https://host%s)", apiPath, version)
		case strings.HasSuffix(path, "/api") && ep.APIName() == config.APIChat:
			// Ollama's native API is /api; its OpenAI-compatible one is /v1
			// beside it, not below it.
			return "base_url ends in /api, Ollama's native API: its OpenAI-compatible API is at /v1 instead, so try base_url: " + strings.TrimSuffix(strings.TrimSuffix(shownURL(ep.URL), "/"), "/api") + "/v1"
		case !hasV1(path):
			servers := "most servers"
			if ep.APIName() == config.APIChat {
				servers = "most OpenAI-compatible servers"
			}
			return fmt.Sprintf("base_url has no %s: %s answer at BASE%s%s, so try base_url: %s%s", version, servers, version, apiPath, strings.TrimSuffix(shownURL(ep.URL), "/"), version)
		case ep.APIName() == config.APIChat:
			return fmt.Sprintf("check the model name %q: an unknown model is a 404 on Ollama and vLLM", ep.Model)
		}
		return fmt.Sprintf("the server may not implement the %s API (many speak only OpenAI chat completions: api: chat), or it does not know the model %q", apiTitle(ep.APIName()), ep.Model)
	case http.StatusMethodNotAllowed:
		if apiPath == "" {
			return fmt.Sprintf("the URL answers, but not to POST: base_url is the URL of the streaming endpoint itself (api: %s), which takes a POST", ep.APIName())
		}
		return fmt.Sprintf("the URL answers, but not to POST: the server does not implement the %s API at this path; check api: and base_url", apiTitle(ep.APIName()))
	}
	return ""
}

// apiTitle is an API's name as its provider writes it.
func apiTitle(api string) string {
	switch api {
	case config.APIResponses:
		return "OpenAI Responses"
	case config.APIAnthropic:
		return "Anthropic Messages"
	case config.APIGemini:
		return "Gemini streamGenerateContent"
	case config.APISSE:
		return "app stream"
	case config.APINDJSON:
		return "NDJSON stream"
	}
	return "OpenAI chat completions"
}

// urlPath is the path of a base URL ("" when it does not parse).
func urlPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Path
}

// hasV1 reports whether a path has a version segment such as /v1 or /v1beta.
func hasV1(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		if len(seg) >= 2 && seg[0] == 'v' && seg[1] >= '0' && seg[1] <= '9' {
			return true
		}
	}
	return false
}

// shownURL is a base URL as a message may show it: scheme, host and path,
// no credentials or query.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "BASE"
	}
	return u.Scheme + "://" + u.Host + u.Path
}
