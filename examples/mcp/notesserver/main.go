// Command notesserver is a small MCP server for the mcp example: it keeps
// notes as Markdown files under notes/ in its working directory.
//
//	notesserver                       serve over stdio (what MCP clients start)
//	notesserver -http 127.0.0.1:8080  serve streamable HTTP at http://127.0.0.1:8080/mcp
//
// Its tools: add_note {title, body} writes notes/<title>.md (a title that
// is not a plain name is an error result, not a protocol error);
// list_notes returns {titles}; count_words {text} returns {words}.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is the server's version, as it says at initialize.
const Version = "1.0.0"

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("notesserver: ")
	srv := newServer()
	if *addr != "" {
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			log.Fatal(err)
		}
		mux := http.NewServeMux()
		mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
		log.Printf("serving http://%s/mcp", ln.Addr()) // the real port, for -http 127.0.0.1:0
		log.Fatal(http.Serve(ln, mux))
	}
	// Logs go to stderr: stdout carries the protocol.
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

type note struct {
	Title string `json:"title" jsonschema:"the note's name: letters, digits, dashes"`
	Body  string `json:"body" jsonschema:"the note's Markdown text"`
}

type saved struct {
	Path string `json:"path"`
}

type titles struct {
	Titles []string `json:"titles"`
}

type text struct {
	Text string `json:"text"`
}

type count struct {
	Words int `json:"words"`
}

var plainTitle = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*$`)

func newServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: Version}, &mcp.ServerOptions{
		Instructions: "Keep notes with add_note; list them with list_notes.",
		Capabilities: &mcp.ServerCapabilities{}, // tools only (added below), no logging
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "add_note", Description: "Saves a note as notes/<title>.md."},
		func(_ context.Context, _ *mcp.CallToolRequest, n note) (*mcp.CallToolResult, saved, error) {
			if !plainTitle.MatchString(n.Title) {
				return nil, saved{}, fmt.Errorf("invalid title %q: use letters, digits and dashes", n.Title)
			}
			path := filepath.Join("notes", n.Title+".md")
			if err := os.MkdirAll("notes", 0o755); err != nil {
				return nil, saved{}, err
			}
			if err := os.WriteFile(path, []byte(n.Body+"\n"), 0o644); err != nil {
				return nil, saved{}, err
			}
			log.Printf("saved %s", path)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "saved " + filepath.ToSlash(path)}}}, saved{Path: filepath.ToSlash(path)}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "list_notes", Description: "Lists the titles of the saved notes."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, titles, error) {
			entries, err := os.ReadDir("notes")
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, titles{}, err
			}
			out := titles{Titles: []string{}}
			for _, e := range entries {
				if t, ok := strings.CutSuffix(e.Name(), ".md"); ok {
					out.Titles = append(out.Titles, t)
				}
			}
			sort.Strings(out.Titles)
			return nil, out, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "count_words", Description: "Counts the words of text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, count, error) {
			return nil, count{Words: len(strings.Fields(in.Text))}, nil
		})
	return srv
}
