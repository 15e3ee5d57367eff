package rubric

import "testing"

func TestParseVerdictSaysWhatIsWrongWithTheJSON(t *testing.T) {
	tests := []struct{ answer, want string }{
		{`{"score": "high", "comment": "x"}`, `it is not the JSON object asked for (score must be float64, got JSON string)`},
		{"{\n  \"score\": 1,\n  \"comment\": x}", `it is not the JSON object asked for (at line 3, column 14: invalid character 'x' looking for beginning of value)`},
		{`{"score": 1, "comment": "x", "passed": true}`, `it is not the JSON object asked for (unknown field "passed")`},
	}
	for _, tt := range tests {
		_, err := parseVerdict(tt.answer)
		if err == nil || err.Error() != tt.want {
			t.Errorf("parseVerdict(%q) = %v, want %q", tt.answer, err, tt.want)
		}
	}
}
