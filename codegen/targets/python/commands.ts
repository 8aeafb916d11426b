/** Client-initiated commands (spec/tables/client-initiated-commands.json) as Python wrappers (lifeloop_callback/_gen_commands.py, on the hand-written _host.py). */
import type { CommandGroup } from "../../model/model.js";
import type { PythonSdkViewModel } from "../../../generated/codegen/python/view-model.js";
import { pascal, pyAttr, snake } from "./naming.js";

/** Python type and readers of a member the host CLI prints (a result field or an error field). */
export interface MemberType {
  readonly annotation: string;
  /** `CommandReportedError` accessor for error fields. */
  readonly accessor: string;
  /** Module-level parser for result fields. */
  readonly parser: string;
}

/** Python type and readers of each member type of spec/tables/client-initiated-commands.json `members`. */
export const MEMBER_PY_TYPES: Readonly<
  Record<"string" | "unsigned_integer" | "nullable_unsigned_integer" | "entries", MemberType>
> = {
  string: { annotation: "str", accessor: "_str", parser: "_want_str" },
  unsigned_integer: { annotation: "int", accessor: "_int", parser: "_want_int" },
  nullable_unsigned_integer: { annotation: "Optional[int]", accessor: "_int", parser: "_want_optional_int" },
  entries: { annotation: "Tuple[_host.ListedEntry, ...]", accessor: "_str", parser: "_want_entries" },
};

export function fieldType(group: CommandGroup, member: string, where: string): MemberType {
  const known = group.members.find((m) => m.name === member);
  if (!known)
    throw new Error(
      `python target: ${where} prints member ${JSON.stringify(member)}, which spec/tables/client-initiated-commands.json members does not type`,
    );
  if (known.nullable && known.type !== "unsigned_integer")
    throw new Error(`python target: ${where}: a nullable ${known.type} member has no Python reader yet`);
  return MEMBER_PY_TYPES[known.nullable ? "nullable_unsigned_integer" : known.type];
}

export function commandGroupView(group: CommandGroup): PythonSdkViewModel["groups"][number] {
  const className = pascal(group.group);
  const cliText = group.cli.join(" ");
  const errors = group.errors.map((e) => ({
    className: `${className}${pascal(e.error)}Error`,
    error: e.error,
    doc: `\`${e.error}\` reported by \`${cliText}\` (exit status ${e.exit_code})${e.fields.length ? `; fields: ${e.fields.join(", ")}` : ""}.`,
    fields: e.fields.map((f) => {
      const t = fieldType(group, f, `client-initiated-commands ${group.group} error ${e.error}`);
      return {
        name: f,
        attr: pyAttr(f),
        annotation: t.annotation.startsWith("Optional[") ? t.annotation.slice(9, -1) : t.annotation,
        accessor: t.accessor,
      };
    }),
  }));
  const commands = group.commands.map((c) => {
    const method = snake(c.command);
    const resultClass = `${className}${pascal(c.command)}Result`;
    const positional: { param: string; pyType: "int" | "str" }[] = [];
    const keywords: { param: string; pyType: "int" | "str" }[] = [];
    const flags = c.flags.map((f) => {
      const param = pyAttr(snake(f.flag.replace(/^--/, "")));
      (f.required ? positional : keywords).push({ param, pyType: f.value === "unsigned_integer" ? "int" : "str" });
      return { flag: f.flag, param, kind: f.value };
    });
    const where = `client-initiated-commands ${group.group} ${c.command}`;
    const resultFields = c.result_fields.map((f) => {
      const t = fieldType(group, f, where);
      return { attr: pyAttr(f), annotation: t.annotation, parser: t.parser, name: f };
    });
    const source =
      c.stdout === "json"
        ? "the JSON object on stdout"
        : c.stderr === "json_metadata"
          ? "the JSON metadata on stderr"
          : "stdout";
    const flagDoc = c.flags
      .map((f) => `\`${f.flag}\` (${f.required ? "required" : "optional"} ${f.value.replace("_", " ")})`)
      .join(", ");
    const doc = [
      `Run \`${cliText} ${c.command}\` and return its result (fields from ${source}: ${c.result_fields.join(", ")}).`,
      "",
      `Flags: ${flagDoc || "none"}.${c.stdin === "blob" ? " `blob` is written to the command's stdin." : ""}${
        c.stdout === "blob" ? " The blob comes back raw from stdout." : ""
      }`,
      "",
      `Raises a CommandReportedError subclass for ${group.errors.map((e) => `\`${e.error}\``).join(", ")}; CommandUsageError, CommandTimeoutError, CommandSpawnError, CommandFailedError or CommandOutputError otherwise.`,
    ].join("\n");
    if (c.stdout === "json" && c.stderr === "json_metadata")
      throw new Error(`${where}: JSON on both stdout and stderr is not supported`);
    if (c.stdout === "blob" && c.stderr !== "json_metadata")
      throw new Error(`${where}: a blob result needs JSON metadata on stderr`);
    return {
      method,
      command: c.command,
      resultClass,
      resultDoc: `Result of \`${cliText} ${c.command}\`.`,
      positional,
      keywords,
      doc,
      flags,
      stdinBlob: c.stdin === "blob",
      fieldsSource: c.stdout === "json" ? "_stdout_json" : "_stderr_json",
      blobResult: c.stdout === "blob",
      diagnostics: c.stderr === "diagnostics",
      resultFields,
    };
  });
  const envDoc = group.environment.map((e) => `\`${e.name}\`: ${e.meaning}`).join(" ");
  return {
    className,
    group: group.group,
    program: group.cli[0] ?? "",
    programEnv: group.cli_program_environment ?? "",
    groupArgs: group.cli.slice(1),
    usageExitCode: group.usage_error_exit_code,
    doc: `The \`${group.group}\` commands (${group.spec}): ${group.purpose}\n\nRuns \`${cliText} <command>\`. Identifiers (${group.identifier.max_length} bytes at most, pattern \`${group.identifier.pattern}\`) are checked by the host CLI. Environment: ${envDoc}`,
    errors,
    commands,
  };
}
