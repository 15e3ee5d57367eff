package driver_test

import (
	"encoding/json"
	"fmt"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// wordsConfig is the config of a driver of a made-up agent CLI, "words":
// the process fields shared by every driver, and one of its own.
type wordsConfig struct {
	driver.ProcessConfig
	Loud bool `json:"loud,omitempty"`
}

var wordsDefaults = driver.CLIDefaults("words", map[string]string{"WORDS_HOME": "the driver gives each run its own"})

func (c *wordsConfig) Validate() error {
	var p lux.Problems
	c.ProcessConfig.Validate(&p, wordsDefaults)
	return p.Err(lux.ErrInvalidConfig)
}

func parseWords(raw json.RawMessage) (*wordsConfig, error) {
	c := &wordsConfig{}
	if err := lux.DecodeConfig(raw, c, c.Validate); err != nil {
		return nil, fmt.Errorf("words: %w", err)
	}
	c.ProcessConfig = c.ProcessConfig.WithDefaults(wordsDefaults)
	return c, nil
}

// A driver embeds ProcessConfig, validates it with its defaults, and
// fills them in once the config has decoded.
func ExampleProcessConfig() {
	c, err := parseWords(json.RawMessage(`{"loud": true}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := json.Marshal(c)
	fmt.Println(string(b))

	_, err = parseWords(json.RawMessage(`{"lowd": true, "env": {"WORDS_HOME": "/tmp"}, "idleTimeout": "-1s"}`))
	fmt.Println(err)
	// Output:
	// {"command":"words","inheritEnv":true,"idleTimeout":"10m0s","loud":true}
	// words: lux: invalid config:
	//   - lowd: unknown field (did you mean "loud"?)
	//   - env.WORDS_HOME: set by the driver (the driver gives each run its own)
	//   - idleTimeout: must not be negative, got -1s (leave it out for 10m, or give a duration such as "90s")
}
