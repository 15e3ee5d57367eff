package assertion_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
)

// JSON numbers compare by exact decimal value, whatever their spelling.
func TestJSONPointerEqualsNumbers(t *testing.T) {
	numbers := func(r *lux.Run) {
		doc := `{"three": 3, "big": 12345678901234567890, "zero": 0, "neg": -2.50,
			"huge": 10e4999999, "tiny": 1e-4999999, "e400": 1E400}`
		if err := os.WriteFile(filepath.Join(r.Workspace, "n.json"), []byte(doc), 0o644); err != nil {
			panic(err)
		}
	}
	eq := func(name, ptr, value string, pass bool) evaluated {
		return evaluated{name: name, typ: "json-pointer-equals", run: numbers, pass: pass,
			cfg: `{"path":"n.json","pointer":"` + ptr + `","value":` + value + `}`}
	}
	runEvaluations(t, []evaluated{
		eq("3 = 3.0", "/three", "3.0", true),
		eq("3 = 30e-1", "/three", "30e-1", true),
		eq("3 = 0.3E+1", "/three", "0.3E+1", true),
		eq("3 != 3.0000000000000000001", "/three", "3.0000000000000000001", false),
		eq("3 != -3", "/three", "-3", false),
		eq("big integers stay exact", "/big", "12345678901234567891", false),
		eq("big integer", "/big", "1234567890123456789e1", true),
		eq("0 = -0", "/zero", "-0", true),
		eq("0 = 0e999", "/zero", "0.0e999", true),
		eq("-2.50 = -2.5", "/neg", "-2.5", true),
		eq("-2.50 != 2.5", "/neg", "2.5", false),
		// A config holds float64-sized numbers only; the file may hold any.
		eq("huge exponent in the file", "/huge", "1e300", false),
		eq("tiny exponent in the file", "/tiny", "0", false),
		eq("1E400 is not the largest float", "/e400", "1.7976931348623157e308", false),
		eq("a number is not a string", "/three", `"3"`, false),
	})
}
