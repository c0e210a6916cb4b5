package fakeprovider

import "strings"

// fillSchema returns a minimal value that satisfies a JSON schema (or the
// Gemini OpenAPI subset with upper-case types): every property present,
// strings "fake" or the first enum value, numbers at least 1 and within
// bounds, one item per array. Gemini's router rejects a complexity score of
// 0, and Claude's and Codex's title calls want {"title": "..."}.
func fillSchema(schema map[string]any, depth int) any {
	if schema == nil || depth > 8 {
		return map[string]any{}
	}
	if v, ok := schema["const"]; ok {
		return v
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := schema[key].([]any); ok && len(alts) > 0 {
			if first, ok := alts[0].(map[string]any); ok {
				return fillSchema(first, depth+1)
			}
		}
	}
	switch schemaType(schema) {
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for name, p := range props {
			sub, _ := p.(map[string]any)
			out[name] = fillSchema(sub, depth+1)
		}
		return out
	case "array":
		items, _ := schema["items"].(map[string]any)
		return []any{fillSchema(items, depth+1)}
	case "string":
		return "fake"
	case "integer", "number":
		n := 1.0
		if lo, ok := number(schema["minimum"]); ok && lo > n {
			n = lo
		}
		if hi, ok := number(schema["maximum"]); ok && hi < n {
			n = hi
		}
		return n
	case "boolean":
		return false
	case "null":
		return nil
	}
	return map[string]any{}
}

// schemaType reads "type", which may be a string, a list (first non-null)
// or absent (object when there are properties).
func schemaType(schema map[string]any) string {
	switch t := schema["type"].(type) {
	case string:
		return strings.ToLower(t)
	case []any:
		for _, v := range t {
			if s, ok := v.(string); ok && s != "null" {
				return strings.ToLower(s)
			}
		}
	}
	if _, ok := schema["properties"]; ok {
		return "object"
	}
	return ""
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}
