/** The client runner's failure classes, warning codes and documented outcomes (runner_outcomes.go). */
import type { Model } from "../../model/model.js";
import type { GoViewModel } from "../../../generated/codegen/go/view-model.js";
import { runnerOutcomeBullets, runnerOutcomes, runnerOutcomeTable, runnerVariants } from "../sdk-shared.js";
import { enumConst, failureVariantConst } from "./naming.js";

/** The client runner: failure classes and warning-code constants from the tables, and its documented outcomes. */
export function runnerView(model: Model): GoViewModel["runner"] {
  const v = runnerVariants(model, "go");
  const cls = (failureClass: string): { name: string; constName: string } => ({
    name: failureClass,
    constName: enumConst(model, "FailureClass", failureClass),
  });
  const reject = cls(v.invalidRequest.failureClass);
  const handler = cls(v.handlerThrew.failureClass);
  const outcomes = runnerOutcomes(model, "go", {
    binding: "go",
    handlerFails: "returns an error or panics",
    invalidResponseExtra: "",
  });
  return {
    rejectClass: reject.name,
    rejectClassConst: reject.constName,
    handlerErrorClass: handler.name,
    handlerErrorClassConst: handler.constName,
    timeoutClassConst: cls(v.timeout.failureClass).constName,
    readErrorClassConst: cls(v.readRequest.failureClass).constName,
    readRequestCode: failureVariantConst(v.readRequest.variant),
    invalidRequestCode: failureVariantConst(v.invalidRequest.variant),
    guardCode: failureVariantConst(v.guard.variant),
    handlerThrewCode: failureVariantConst(v.handlerThrew.variant),
    invalidResponseCode: failureVariantConst(v.invalidResponse.variant),
    timeoutCode: failureVariantConst(v.timeout.variant),
    outcomeLines: runnerOutcomeBullets(outcomes, 94),
    outcomeTable: runnerOutcomeTable(outcomes),
  };
}
