/** The client runner's failure classes, warning codes and documented outcomes (runner_outcomes.py, runner.py). */
import type { Model } from "../../model/model.js";
import type { PythonSdkViewModel } from "../../../generated/codegen/python/view-model.js";
import { runnerOutcomeBullets, runnerOutcomes, runnerOutcomeTable, runnerVariants } from "../sdk-shared.js";
import { failureVariantConst, isortNames, pyConstName } from "./naming.js";

/** The client runner: failure classes and warning-code constants from the tables, and its documented outcomes. */
export function runnerView(model: Model): PythonSdkViewModel["runner"] {
  const v = runnerVariants(model, "python");
  const outcomes = runnerOutcomes(model, "python", {
    binding: "python",
    handlerFails: "raises an exception",
    invalidResponseExtra: " or is not a CallbackResponse at all",
  });
  const codes = {
    readRequestCode: failureVariantConst(v.readRequest.variant),
    guardCode: failureVariantConst(v.guard.variant),
    handlerThrewCode: failureVariantConst(v.handlerThrew.variant),
    invalidResponseCode: failureVariantConst(v.invalidResponse.variant),
  };
  return {
    rejectClass: v.invalidRequest.failureClass,
    rejectMember: pyConstName(v.invalidRequest.failureClass),
    guardEvent: model.tables.receiptEmittedGuard.event,
    guardMember: pyConstName(v.guard.failureClass),
    handlerClass: v.handlerThrew.failureClass,
    handlerMember: pyConstName(v.handlerThrew.failureClass),
    readMember: pyConstName(v.readRequest.failureClass),
    ...codes,
    specImports: isortNames([...new Set(Object.values(codes))]),
    outcomeLines: runnerOutcomeBullets(outcomes, 98, (name) => `\`\`${name}\`\``),
    outcomeTable: runnerOutcomeTable(outcomes),
  };
}
