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

func ExampleNotValid() {
	for _, data := range []string{"{\"id\": \"a\"}\n{\"id\": \"b\"}", `{"id": `} {
		var v any
		fmt.Println(jsonerr.NotValid([]byte(data), json.Unmarshal([]byte(data), &v)))
	}
	// Output:
	// not valid JSON at line 2, column 1: invalid character '{' after top-level value
	// not valid JSON: unexpected end of JSON input
}
