// Command agent is the example agent of examples/hooks: it speaks
// lux-jsonl, reads the service's address from service.url in its
// workspace (written there by the example's case hook), asks the service
// for a greeting and writes it to greeting.txt.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	dir := os.Getenv("LUX_ARTIFACTS_DIR")
	if dir == "" {
		dir = "."
	}
	fmt.Println(`{"type":"ready","agentId":"hooks-example-agent"}`)
	if err := work(dir); err != nil {
		fmt.Printf("{\"type\":\"error\",\"reason\":%q}\n", err.Error())
		return
	}
	fmt.Println(`{"type":"done"}`)
}

func work(dir string) error {
	url, err := os.ReadFile(filepath.Join(dir, "service.url"))
	if err != nil {
		return err
	}
	resp, err := http.Get(strings.TrimSpace(string(url)) + "/greeting")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	fmt.Println(`{"type":"progress","id":"p1","kind":"tool-call","payload":{"name":"http_get","input":{"path":"/greeting"},"toolUseId":"t1"}}`)
	fmt.Println(`{"type":"progress","id":"p2","kind":"tool-result","payload":{"name":"http_get","toolUseId":"t1","output":"ok"}}`)
	return os.WriteFile(filepath.Join(dir, "greeting.txt"), body, 0o644)
}
