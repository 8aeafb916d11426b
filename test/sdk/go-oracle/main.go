// Command go-oracle judges wire documents with the generated Go SDK, for the differential check in
// test/sdk/go.test.ts (Go decoder vs. the TypeScript validator).
//
// Input (stdin): one JSON object per line, {"type": "<WireObjectType>", "document_base64": "..."}.
// Output (stdout): one JSON object per input line, in order:
// {"valid": true} or {"valid": false, "rule": "...", "pointer": "...", "message": "..."}.
// A valid document is also encoded again and decoded once more; a failure there is reported as
// {"valid": false, "rule": "go-oracle.round-trip", ...} so the suite fails loudly.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"lifeloop-callback.dev/lifeloop"
)

type request struct {
	Type           string `json:"type"`
	DocumentBase64 string `json:"document_base64"`
}

type verdict struct {
	Valid   bool   `json:"valid"`
	Rule    string `json:"rule,omitempty"`
	Pointer string `json:"pointer"`
	Message string `json:"message,omitempty"`
}

func judge(line []byte) verdict {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return verdict{Rule: "go-oracle.input", Message: err.Error()}
	}
	doc, err := base64.StdEncoding.DecodeString(req.DocumentBase64)
	if err != nil {
		return verdict{Rule: "go-oracle.input", Message: err.Error()}
	}
	err = lifeloop.ValidateDocument(req.Type, doc)
	var invalid *lifeloop.ValidationError
	switch {
	case err == nil:
		if problem := roundTrip(req.Type, doc); problem != nil {
			return verdict{Rule: "go-oracle.round-trip", Message: problem.Error()}
		}
		return verdict{Valid: true}
	case errors.As(err, &invalid):
		return verdict{Rule: invalid.Rule, Pointer: invalid.Pointer, Message: invalid.Message}
	default:
		return verdict{Rule: "go-oracle.error", Message: err.Error()}
	}
}

// roundTrip re-encodes a valid document and checks that the encoding is stable.
func roundTrip(typeName string, doc []byte) error {
	first, err := lifeloop.CanonicalizeDocument(typeName, doc)
	if err != nil {
		return err
	}
	second, err := lifeloop.CanonicalizeDocument(typeName, first)
	if err != nil {
		return err
	}
	if string(first) != string(second) {
		return fmt.Errorf("encoding is not stable: %s then %s", first, second)
	}
	return nil
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if err := enc.Encode(judge(line)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		if err != nil {
			break
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
