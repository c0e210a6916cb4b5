package fakeprovider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// geminiBody is the part of a generateContent request the fake reads.
type geminiBody struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"contents"`
	GenerationConfig struct {
		ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
		ResponseSchema     map[string]any `json:"responseSchema"`
	} `json:"generationConfig"`
}

func (b geminiBody) lastUserText() string {
	for i := len(b.Contents) - 1; i >= 0; i-- {
		c := b.Contents[i]
		if c.Role != "user" && c.Role != "" {
			continue
		}
		var texts []string
		for _, p := range c.Parts {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		if len(texts) > 0 {
			return strings.Join(texts, "\n")
		}
	}
	return ""
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
	req.Prompt = body.lastUserText()
	schema := body.schema()
	req.Side = schema != nil
	a := s.reply(&req, schema)
	s.record(req)
	if a.Limit != nil {
		s.geminiLimit(w, model, *a.Limit)
		return
	}
	in, out := usage(a, len(raw))
	respID := s.newID("fake")
	chunk := func(text string, last bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model",
			"parts": []any{map[string]any{"text": text}}}, "index": 0}
		used := map[string]any{"promptTokenCount": in, "totalTokenCount": in}
		if last {
			cand["finishReason"] = "STOP"
			used = map[string]any{"promptTokenCount": in, "candidatesTokenCount": out,
				"totalTokenCount": in + out}
		}
		return map[string]any{"candidates": []any{cand}, "usageMetadata": used,
			"modelVersion": model, "responseId": respID}
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, chunk(a.Text, true))
		return
	}
	e := s.startSSE(w, r)
	parts := chunks(a.Text, s.script.ChunkRunes)
	for i, c := range parts {
		if !e.pause() {
			return
		}
		e.event("", chunk(c, i == len(parts)-1))
	}
}

func geminiError(code int, status, msg string, details []any) map[string]any {
	if details == nil {
		details = []any{}
	}
	return map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status,
		"details": details}}
}

// geminiLimit answers 429 RESOURCE_EXHAUSTED with a QuotaFailure and a
// RetryInfo as the Gemini API does: a per-day quota for UsageLimit (the
// CLI's TerminalQuotaError), a per-minute one for RateLimit (retried).
func (s *Server) geminiLimit(w http.ResponseWriter, model string, l Limit) {
	secs := int64(l.resetIn().Seconds())
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
		map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": fmt.Sprintf("%ds", secs)},
	}
	writeJSON(w, http.StatusTooManyRequests, geminiError(http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", msg, details))
}
