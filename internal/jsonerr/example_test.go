package jsonerr_test

import (
	"encoding/json"
	"fmt"

	"github.com/luxeval/lux/internal/jsonerr"
)

func ExampleDescribe() {
	data := []byte("{\n  \"retries\": three\n}")
	var v struct{ Retries int }
	fmt.Println(jsonerr.Describe(data, json.Unmarshal(data, &v)))

	data = []byte(`{"retries": "three"}`)
	var w struct {
		Retries int `json:"retries"`
	}
	fmt.Println(jsonerr.Describe(data, json.Unmarshal(data, &w)))
	// Output:
	// at line 2, column 15: invalid character 'h' in literal true (expecting 'r')
	// retries must be int, got JSON string
}
