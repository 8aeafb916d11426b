/**
 * `lifeloop-callback/client`: a TypeScript callback client. The runner that answers a host over
 * stdin/stdout, one envelope (v1) or a stream session (v2) (spec/host-runtime.md, spec/stream-protocol.md), and the
 * client-initiated commands a stream client sends to its host (spec/stream-protocol.md).
 * Every name is also exported by the package root, `lifeloop-callback`; this entry point re-exports
 * the root's own bindings. Wire types and validation: `lifeloop-callback/wire`.
 */
export {
  answerEnvelope,
  ClientCommands,
  CommandError,
  failureResponse,
  RequestFrameTooLargeError,
  serve,
  StreamClosedError,
} from "../index.js";
export type { ClientContext, ClientHandler, CommandResult, CommandTransport, ServeOptions } from "../index.js";
