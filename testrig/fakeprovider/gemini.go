package fakeprovider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// geminiBody is the part of a generateContent request the fake reads.
type geminiBody struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text             string `json:"text"`
			FunctionResponse *struct {
				ID       string                     `json:"id"`
				Name     string                     `json:"name"`
				Response map[string]json.RawMessage `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	GenerationConfig struct {
		ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
		ResponseSchema     map[string]any `json:"responseSchema"`
	} `json:"generationConfig"`
}

// newestInput returns the text of the last user content and the function
// responses after the model's last content; the prompt is "" when the
// newest input only brings function responses back.
func (b geminiBody) newestInput() (string, []ToolResult) {
	prompt, found := "", false
	var results []ToolResult
	for i := len(b.Contents) - 1; i >= 0 && b.Contents[i].Role != "model"; i-- {
		var texts []string
		var here []ToolResult
		for _, p := range b.Contents[i].Parts {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
			if fr := p.FunctionResponse; fr != nil {
				r := ToolResult{CallID: fr.ID, Name: fr.Name}
				if out, ok := fr.Response["output"]; ok {
					r.Text = toolText(out)
				} else if e, ok := fr.Response["error"]; ok {
					r.Text, r.IsError = toolText(e), true
				} else {
					r.Text = string(mustJSON(fr.Response))
				}
				here = append(here, r)
			}
		}
		results = append(here, results...)
		if len(texts) > 0 && !found {
			prompt, found = strings.Join(texts, "\n"), true
		}
	}
	return prompt, results
}

func (b geminiBody) schema() map[string]any {
	if b.GenerationConfig.ResponseJSONSchema != nil {
		return b.GenerationConfig.ResponseJSONSchema
	}
	return b.GenerationConfig.ResponseSchema
}

// serveGemini handles /v1beta/models/MODEL:METHOD.
func (s *Server) serveGemini(w http.ResponseWriter, r *http.Request, raw []byte, req Request) {
	rest := req.Path[strings.Index(req.Path, "/models/")+len("/models/"):]
	model, method, _ := strings.Cut(rest, ":")
	req.Model = model
	switch method {
	case "streamGenerateContent", "generateContent":
	case "countTokens":
		req.Answered = "static"
		s.record(req)
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": len(raw)/4 + 1})
		return
	default:
		req.Answered = "not_found"
		s.record(req)
		writeJSON(w, http.StatusNotFound, geminiError(http.StatusNotFound, "NOT_FOUND",
			"fakeprovider: method "+method+" not supported", nil))
		return
	}
	var body geminiBody
	if err := json.Unmarshal(raw, &body); err != nil {
		s.logger.Warn("decode gemini request", "path", req.Path, "error", err)
		writeJSON(w, http.StatusBadRequest, geminiError(http.StatusBadRequest, "INVALID_ARGUMENT",
			"fakeprovider: bad JSON", nil))
		return
	}
	req.Stream = method == "streamGenerateContent"
	req.Prompt, req.ToolResults = body.newestInput()
	schema := body.schema()
	req.Side = schema != nil
	a := s.reply(&req, schema)
	if a.Tool != nil {
		req.ToolCallID = geminiShellTool
	}
	s.record(req)
	if a.Limit != nil {
		s.geminiLimit(w, model, *a.Limit, req.At)
		return
	}
	u := req.Served
	respID := s.newID("fake")
	chunk := func(parts []any, last bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		// promptTokenCount is the whole prompt, cachedContentTokenCount the
		// part of it read from the cache; the last chunk adds the reply.
		used := map[string]any{"promptTokenCount": u.Input, "totalTokenCount": u.Input}
		if last {
			cand["finishReason"] = "STOP"
			used = map[string]any{"promptTokenCount": u.Input, "candidatesTokenCount": u.Output,
				"totalTokenCount": u.Input + u.Output}
		}
		if u.CachedInput > 0 {
			used["cachedContentTokenCount"] = u.CachedInput
		}
		return map[string]any{"candidates": []any{cand}, "usageMetadata": used,
			"modelVersion": model, "responseId": respID}
	}
	// The text comes in chunks; a function call comes whole, in the last
	// chunk, as the API sends it.
	var call []any
	if a.Tool != nil {
		call = []any{map[string]any{"functionCall": map[string]any{"name": geminiShellTool, "args": a.Tool.toolArgs()}}}
	}
	if !req.Stream {
		parts := call
		if a.Text != "" || a.Tool == nil {
			parts = append([]any{map[string]any{"text": a.Text}}, parts...)
		}
		writeJSON(w, http.StatusOK, chunk(parts, true))
		return
	}
	e := s.startSSE(w, r)
	var texts []string
	if a.Text != "" || a.Tool == nil {
		texts = chunks(a.Text, s.script.ChunkRunes)
	}
	for i, c := range texts {
		if !e.pause() {
			return
		}
		last := i == len(texts)-1 && call == nil
		e.event("", chunk([]any{map[string]any{"text": c}}, last))
	}
	if call != nil {
		if !e.pause() {
			return
		}
		e.event("", chunk(call, true))
	}
}

// geminiShellTool is Gemini CLI's shell tool.
const geminiShellTool = "run_shell_command"

func geminiError(code int, status, msg string, details []any) map[string]any {
	if details == nil {
		details = []any{}
	}
	return map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status,
		"details": details}}
}

// geminiLimit answers 429 RESOURCE_EXHAUSTED as Google's servers do, in
// the shapes Gemini CLI's classifyGoogleError (packages/core
// utils/googleQuotaErrors) tells apart:
//   - UsageLimit: the Code Assist quota of a signed-in account, ErrorInfo
//     QUOTA_EXHAUSTED in the cloudcode-pa.googleapis.com domain and a
//     RetryInfo delay to the reset: terminal, shown with "Access resets at";
//   - UsageLimit with GeminiDaily: the Gemini API's per-day free-tier quota
//     (QuotaFailure quotaId …PerDay…): terminal, with no reset time;
//   - RateLimit: a per-minute quota with a RetryInfo delay: retried.
func (s *Server) geminiLimit(w http.ResponseWriter, model string, l Limit, now time.Time) {
	secs := secondsUntil(now, l.resetAt(now))
	retry := map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": fmt.Sprintf("%ds", secs)}
	if l.Kind == UsageLimit && !l.GeminiDaily {
		msg := fmt.Sprintf("Quota exceeded for quota metric 'Gemini requests' and limit 'Gemini requests per 5 hours "+
			"per user per tier' of service 'cloudcode-pa.googleapis.com'. Your quota will reset after %s.",
			(time.Duration(secs) * time.Second).String())
		details := []any{
			map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "QUOTA_EXHAUSTED",
				"domain": "cloudcode-pa.googleapis.com", "metadata": map[string]any{"model": model,
					"quotaResetDelay":     (time.Duration(secs) * time.Second).String(),
					"quotaResetTimeStamp": l.resetAt(now).UTC().Format(time.RFC3339)}},
			retry,
		}
		writeJSON(w, http.StatusTooManyRequests, geminiError(http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", msg, details))
		return
	}
	quotaID, metric, value := "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
		"generativelanguage.googleapis.com/generate_content_free_tier_requests", "250"
	if l.Kind == RateLimit {
		quotaID, value = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "10"
	}
	msg := fmt.Sprintf("You exceeded your current quota, please check your plan and billing details. "+
		"For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n"+
		"* Quota exceeded for metric: %s, limit: %s, model: %s\nPlease retry in %ds.", metric, value, model, secs)
	details := []any{
		map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{
			map[string]any{"quotaMetric": metric, "quotaId": quotaID,
				"quotaDimensions": map[string]any{"location": "global", "model": model}, "quotaValue": value}}},
		map[string]any{"@type": "type.googleapis.com/google.rpc.Help", "links": []any{
			map[string]any{"description": "Learn more about Gemini API quotas",
				"url": "https://ai.google.dev/gemini-api/docs/rate-limits"}}},
		retry,
	}
	writeJSON(w, http.StatusTooManyRequests, geminiError(http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", msg, details))
}
