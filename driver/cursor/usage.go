package cursor

import "github.com/luxeval/lux"

// parseUsage reads the token usage of a result line: the nested
// "usage": {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens}
// that current CLIs print, or the same counts at the top level of the
// result, which some versions are said to print. Every count is optional
// and may be a number or a string. It returns nil when the result carries
// no count at all, as versions up to 2026.01 print: usage is then
// unavailable, which is not the same as zero.
//
// inputTokens excludes cache reads, so the counts map one to one:
// cacheWriteTokens is the cache creation count.
func parseUsage(res line) *lux.TokenUsage {
	if u := usageOf(res.object("usage")); u != nil {
		return u
	}
	return usageOf(res)
}

func usageOf(l line) *lux.TokenUsage {
	if l == nil {
		return nil
	}
	var u lux.TokenUsage
	found := false
	for _, f := range []struct {
		key string
		dst *int64
	}{
		{"inputTokens", &u.Input},
		{"outputTokens", &u.Output},
		{"cacheReadTokens", &u.CacheRead},
		{"cacheWriteTokens", &u.CacheCreation},
	} {
		if v, ok := l.num(f.key); ok {
			found = true
			if v > 0 {
				*f.dst = int64(v)
			}
		}
	}
	if !found {
		return nil
	}
	return &u
}

// parseCost reads a cost in USD from the result's usage ("totalCost" or
// "cost"). No CLI version has been seen to print one; nil when absent.
func parseCost(res line) *float64 {
	u := res.object("usage")
	for _, k := range []string{"totalCost", "cost"} {
		if v, ok := u.num(k); ok && v >= 0 {
			return &v
		}
	}
	return nil
}
