package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file holds a prompt's tools (function declarations) and tool choice.

var (
	toolKeys    = []string{"name", "description", "parameters"}
	toolName    = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	toolChoices = []string{"auto", "required", "none"}
)

const toolExample = `tools: [{name: get_weather, description: "Weather in a city", parameters: {type: object, properties: {city: {type: string}}, required: [city]}}]`

func (p *parser) tools(m map[string]*yaml.Node, path string, pr *Prompt) {
	if v := get(m, "tools"); v != nil {
		items, ok := p.list(v, path+".tools", toolExample)
		if ok && len(items) == 0 {
			p.fail(v, path+".tools", "empty; declare at least one tool or remove the key, e.g. %s", toolExample)
		}
		seen := map[string]int{}
		for i, it := range items {
			f := fmt.Sprintf("%s.tools[%d]", path, i)
			tm, ok := p.mapping(it, f, toolKeys)
			if !ok {
				continue
			}
			var t Tool
			if nv := get(tm, "name"); nv == nil {
				p.fail(it, f, "missing required field name; e.g. name: get_weather")
			} else if s, ok := p.str(nv, f+".name", "get_weather"); ok {
				if !toolName.MatchString(s) {
					p.fail(nv, f+".name", "%q is not a tool name every API accepts: 1 to 64 of A-Z a-z 0-9 _ -", s)
				}
				if first, dup := seen[s]; dup {
					p.fail(nv, f+".name", "duplicate tool %q (first at line %d)", s, first)
				}
				seen[s] = nv.Line
				t.Name = s
			}
			if dv := get(tm, "description"); dv != nil {
				t.Description, _ = p.str(dv, f+".description", `"Weather in a city"`)
			}
			if pv := get(tm, "parameters"); pv != nil {
				x, ok := p.value(pv, f+".parameters", 0)
				if xm, isMap := x.(map[string]any); ok && isMap {
					t.Parameters = xm
				} else if ok {
					p.fail(pv, f+".parameters", "want a JSON Schema object, got %s; e.g. parameters: {type: object, properties: {city: {type: string}}}", describe(deref(pv)))
				}
			}
			pr.Tools = append(pr.Tools, t)
		}
	}
	if v := get(m, "tool_choice"); v != nil {
		s, ok := p.str(v, path+".tool_choice", "required")
		if !ok {
			return
		}
		switch {
		case len(pr.Tools) == 0:
			p.fail(v, path+".tool_choice", "the prompt declares no tools; add tools or remove tool_choice")
		case !slices.Contains(toolChoices, s) && !slices.ContainsFunc(pr.Tools, func(t Tool) bool { return t.Name == s }):
			p.fail(v, path+".tool_choice", "%q is neither %s nor the name of one of the prompt's tools", s, strings.Join(toolChoices, ", "))
		}
		pr.ToolChoice = s
	}
}
