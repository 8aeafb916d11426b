/** Client-initiated commands (spec/tables/client-initiated-commands.json) as Go wrappers (commands.go). */
import type { CommandGroup } from "../../model/model.js";
import type { GoViewModel } from "../../../generated/codegen/go/view-model.js";
import { goName, paramName, singular } from "./naming.js";

/** Go type and reader of each member type of spec/tables/client-initiated-commands.json `members`. */
export const MEMBER_GO_TYPES = {
  string: { goType: "string", read: "string" },
  unsigned_integer: { goType: "uint64", read: "uint" },
  nullable_unsigned_integer: { goType: "*uint64", read: "optUint" },
} as const;

/**
 * How one result member is read: its Go field, type and doc, and the resultReader call the template
 * writes (`r.<method>("<member>")`, `r.optUint("<member>", true)` when nullable, or
 * `<entriesFunc>(r.objects("<member>"))` for a list of entries).
 */
interface ResultRead {
  readonly goName: string;
  readonly goType: string;
  readonly doc: string;
  readonly member: string;
  readonly method: string;
  readonly nullable: boolean;
  readonly entriesFunc: string | null;
}

/** The reader of an `entries` member: a struct type and a function reading a list of them. */
interface EntryReader {
  readonly typeName: string;
  readonly funcName: string;
  readonly reads: readonly ResultRead[];
  readonly doc: string;
}

/** The view of one command group (commands.go). */
export type CommandGroupView = GoViewModel["commandGroups"][number];

/** The Go field and reader of result member `member`; entry structs go into `entryReaders`. */
export function resultRead(
  member: string,
  group: CommandGroup,
  where: string,
  entryReaders: Map<string, EntryReader>,
): ResultRead {
  const known = group.members.find((m) => m.name === member);
  if (!known)
    throw new Error(
      `go target: ${where} prints member ${JSON.stringify(member)}, which spec/tables/client-initiated-commands.json members does not type`,
    );
  const doc = `\`${member}\`: ${known.description}`;
  if (known.type === "entries") {
    const typeName = `${goName(group.group)}${goName(singular(member))}`;
    const funcName = `read${typeName}s`;
    if (!entryReaders.has(typeName)) {
      const reads = (known.entry_members ?? []).map((m) => resultRead(m, group, `${where}.${member}`, entryReaders));
      entryReaders.set(typeName, { typeName, funcName, reads, doc: `one entry of \`${member}\`` });
    }
    return {
      goName: goName(member),
      goType: `[]${typeName}`,
      doc,
      member,
      method: "objects",
      nullable: false,
      entriesFunc: funcName,
    };
  }
  if (known.nullable && known.type !== "unsigned_integer")
    throw new Error(`go target: ${where}: a nullable ${known.type} member has no Go reader yet`);
  const t = MEMBER_GO_TYPES[known.nullable ? "nullable_unsigned_integer" : known.type];
  return {
    goName: goName(member),
    goType: t.goType,
    doc,
    member,
    method: t.read,
    nullable: known.nullable === true,
    entriesFunc: null,
  };
}

/** What the template needs to write the read of one result member. */
function readView(r: ResultRead): CommandGroupView["commands"][number]["reads"][number] {
  return { goName: r.goName, member: r.member, method: r.method, nullable: r.nullable, entriesFunc: r.entriesFunc };
}

/** The view of one command group of spec/tables/client-initiated-commands.json. */
export function commandGroupView(group: CommandGroup): CommandGroupView {
  const [program, ...groupArgs] = group.cli;
  if (program === undefined || groupArgs.length === 0)
    throw new Error(`go target: group ${group.group} has no CLI words`);
  const typeName = `${goName(group.group)}Commands`;
  const entryReaders = new Map<string, EntryReader>();
  const structs: CommandGroupView["structs"] = [];
  const commands = group.commands.map((cmd): CommandGroupView["commands"][number] => {
    const where = `${group.group} ${cmd.command}`;
    const cmdName = goName(cmd.command);
    const required = cmd.flags.filter((f) => f.required);
    const optional = cmd.flags.filter((f) => !f.required);
    const optionsType = `${goName(group.group)}${cmdName}Options`;
    if (optional.length > 0) {
      structs.push({
        name: optionsType,
        doc: `the optional flags of \`${group.cli.join(" ")} ${cmd.command}\` (a nil *${optionsType} passes none)`,
        fields: optional.map((f) => ({
          goName: goName(f.flag),
          goType: f.value === "identifier" ? "string" : "*uint64",
          doc: `${f.flag} (${f.value === "identifier" ? '"" = not passed' : "nil = not passed"})`,
        })),
      });
    }
    const resultType = `${goName(group.group)}${cmdName}Result`;
    const reads = cmd.result_fields.map((m) => resultRead(m, group, where, entryReaders));
    const resultFields = reads.map((r) => ({ goName: r.goName, goType: r.goType, doc: r.doc }));
    if (cmd.stdout === "blob")
      resultFields.unshift({
        goName: "Blob",
        goType: "[]byte",
        doc: "the stored bytes, exactly as the command printed them on stdout",
      });
    if (cmd.stderr === "diagnostics")
      resultFields.push({
        goName: "Diagnostics",
        goType: "[]string",
        doc: "the diagnostic lines the command printed on stderr (one JSON object each)",
      });
    const jsonFrom = cmd.stdout === "json" ? "stdout" : cmd.stderr === "json_metadata" ? "stderr" : null;
    if (jsonFrom === null && reads.length > 0)
      throw new Error(`go target: ${where} names result fields but prints no JSON`);
    structs.push({
      name: resultType,
      doc: `what \`${group.cli.join(" ")} ${cmd.command}\` prints on success (${jsonFrom === "stdout" ? "JSON on stdout" : "the blob on stdout, JSON metadata on stderr"})`,
      fields: resultFields,
    });
    const usage = [
      cmd.command,
      ...cmd.flags.map((f) => (f.required ? `${f.flag} <${f.value}>` : `[${f.flag} <${f.value}>]`)),
    ].join(" ");
    const doc = [
      `${cmdName} runs \`${group.cli.join(" ")} ${usage}\`${cmd.stdin === "blob" ? " with blob on stdin" : ""}.`,
      `A non-zero exit is a *HostError: Code holds the error envelope's code for exit ${[...new Set(group.errors.map((e) => e.exit_code))].join("/")}, Usage is true for exit ${group.usage_error_exit_code}.`,
    ].join(" ");
    return {
      goName: cmdName,
      doc,
      resultType,
      argWords: [...groupArgs, cmd.command],
      requiredFlags: required.map((f) => ({
        flag: f.flag,
        param: paramName(f.flag),
        isUint: f.value !== "identifier",
      })),
      stdinBlob: cmd.stdin === "blob",
      optionsType,
      options: optional.map((f) => ({ goName: goName(f.flag), flag: f.flag, isUint: f.value === "unsigned_integer" })),
      blobOut: cmd.stdout === "blob",
      diagnostics: cmd.stderr === "diagnostics",
      jsonStream: jsonFrom ?? "stdout",
      reads: reads.map(readView),
    };
  });
  for (const reader of entryReaders.values()) {
    structs.push({
      name: reader.typeName,
      doc: reader.doc,
      fields: reader.reads.map((r) => ({ goName: r.goName, goType: r.goType, doc: r.doc })),
    });
  }
  const envDoc = group.environment.map((e) => `${e.name}: ${e.meaning}`).join(" ");
  return {
    group: group.group,
    typeName,
    varName: goName(group.group),
    program,
    programEnv: group.cli_program_environment ?? "",
    usageExitCode: group.usage_error_exit_code,
    doc: `${typeName} runs the \`${group.cli.join(" ")}\` commands (${group.spec}): ${group.purpose} Environment: ${envDoc}`,
    errors: group.errors.map((e) => ({
      constName: `${goName(group.group)}Error${goName(e.error)}`,
      error: e.error,
      exitCode: e.exit_code,
      fields: [...e.fields],
    })),
    structs,
    commands,
    entryReaders: [...entryReaders.values()].map((r) => ({
      funcName: r.funcName,
      typeName: r.typeName,
      reads: r.reads.map(readView),
    })),
  };
}
