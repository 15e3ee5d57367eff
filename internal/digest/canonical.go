package digest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// CanonicalJSON encodes v as JSON with every object's keys sorted and no
// insignificant space, so equal values always give equal bytes.
func CanonicalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var generic any
	if err := d.Decode(&generic); err != nil {
		return nil, err
	}
	return json.Marshal(generic) // maps marshal with sorted keys
}

// Value is the SHA-256 (hex) of v's canonical JSON. It is how every
// provenance hash (case, assertions, configs) is computed.
func Value(v any) (string, error) {
	b, err := CanonicalJSON(v)
	if err != nil {
		return "", fmt.Errorf("lux: hash: %w", err)
	}
	return Bytes(b), nil
}

// Bytes is the SHA-256 (hex) of b.
func Bytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
