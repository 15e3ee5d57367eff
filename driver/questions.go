package driver

import (
	"strconv"

	"github.com/luxeval/lux"
)

// QuestionIDs numbers questions that have no id of their own: "q1", "q2", ...
func QuestionIDs(qs []lux.Question) {
	for i := range qs {
		if qs[i].ID == "" {
			qs[i].ID = "q" + strconv.Itoa(i+1)
		}
	}
}
