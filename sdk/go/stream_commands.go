package lifeloop

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Reverse direction in stream mode (CALLBACK-001 §"Client-Initiated Commands"): while this process
// serves a stream, the command helpers (e.g. Continuation.Put) send a JSON-RPC request over the
// pipe instead of spawning the CLI, under the same operation names
// (spec/tables/client-initiated-commands.json): method <stream_v2_method_prefix><command>, params
// mirroring the flags, a blob as base64. The reply is turned back into what the CLI would have
// printed, so every helper decodes v1 and v2 the same way.

// PROVISIONAL (Q8): the params member of a blob and the mapping of a flag to a params member.
const streamBlobMember = "blob_base64"

// streamParamName is the params member of a CLI flag: "--ttl-s" -> "ttl_s".
func streamParamName(flag string) string {
	return strings.ReplaceAll(strings.TrimPrefix(flag, "--"), "-", "_")
}

// findCommand looks a CLI command up in the table: args are [group, command, flags...].
func findCommand(args []string) (*SpecClientInitiatedCommandsTableGroup, *SpecClientInitiatedCommandsTableGroupCommand) {
	if len(args) < 2 {
		return nil, nil
	}
	for gi := range SpecClientInitiatedCommands.Groups {
		g := &SpecClientInitiatedCommands.Groups[gi]
		if g.Group != args[0] {
			continue
		}
		for ci := range g.Commands {
			if g.Commands[ci].Command == args[1] {
				return g, &g.Commands[ci]
			}
		}
	}
	return nil, nil
}

// runOverStream is Host.run for a process serving a stream.
func (c *streamConn) runOverStream(ctx context.Context, args []string, stdin []byte) (hostOutput, error) {
	group, command := findCommand(args)
	if command == nil {
		return hostOutput{}, &HostError{Args: args, ExitCode: -1, Message: "not a command of client-initiated-commands.json"}
	}
	params := &node{kind: kindObject}
	for i := 2; i+1 < len(args); i += 2 {
		// A JSON string is UTF-8: the host would end the whole stream at such a frame (json.utf8).
		if !utf8.ValidString(args[i+1]) {
			return hostOutput{}, &HostError{Args: args, ExitCode: -1, Message: fmt.Sprintf("%s is not valid UTF-8, as a JSON string must be; nothing was sent", args[i])}
		}
		value := stringNode(args[i+1])
		for _, f := range command.Flags {
			if f.Flag == args[i] && f.Value == "unsigned_integer" {
				value = &node{kind: kindNumber, str: args[i+1]}
				if _, err := strconv.ParseUint(args[i+1], 10, 64); err != nil {
					return hostOutput{}, &HostError{Args: args, ExitCode: -1, Message: fmt.Sprintf("%s needs an unsigned integer", args[i])}
				}
			}
		}
		params.add(streamParamName(args[i]), value)
	}
	if command.Stdin == "blob" {
		params.add(streamBlobMember, stringNode(base64.StdEncoding.EncodeToString(stdin)))
	}
	result, err := c.call(ctx, group.StreamV2MethodPrefix+command.Command, writeNode(nil, params))
	if err != nil {
		var rpcErr *RPCError
		if errors.As(err, &rpcErr) {
			hostErr := &HostError{Args: args, ExitCode: -1, Message: rpcErr.Message, Err: rpcErr}
			if data, ok := rpcErr.Data.(map[string]any); ok {
				if code, ok := data["error"].(string); ok {
					hostErr.Code = code
					hostErr.Details = map[string]any{}
					for k, v := range data {
						if k != "error" {
							hostErr.Details[k] = v
						}
					}
				}
			}
			return hostOutput{}, hostErr
		}
		return hostOutput{}, &HostError{Args: args, ExitCode: -1, Message: "the stream request failed", Err: err}
	}
	if result.kind != kindObject {
		return hostOutput{}, outputError(args, errors.New("the result is not a JSON object"))
	}
	if command.Stdout != "blob" {
		return hostOutput{stdout: writeNode(nil, result)}, nil
	}
	// A blob-out command (get): the blob is the result's blob member, the rest is the metadata the
	// CLI prints on stderr.
	meta := &node{kind: kindObject}
	var blob []byte
	for i, k := range result.keys {
		if k != streamBlobMember {
			meta.add(k, result.values[i])
			continue
		}
		v := result.values[i]
		decoded, err := base64.StdEncoding.DecodeString(v.str)
		if v.kind != kindString || err != nil {
			return hostOutput{}, outputError(args, fmt.Errorf("result member %q is not base64", streamBlobMember))
		}
		blob = decoded
	}
	return hostOutput{stdout: blob, stderr: writeNode(nil, meta)}, nil
}
