/**
 * Conformance corpus, rule family: for every rule step of spec/tables/rules.json in a root's plan,
 * documents that satisfy it and documents that break exactly it (built by corpus.ts).
 */
import type { Field, RuleStep } from "../../model/model.js";
import {
  concretePointer,
  enumNameOf,
  enumValuesOf,
  sampleString,
  sampleValue,
  slug,
  typeNamed,
  type JsonObject,
  type JsonValue,
} from "../../model/samples.js";
import { WRONG_VERSIONS, ruleSlug, whereSlug, type RootCorpus, describeWhere } from "./corpus-base.js";

/** Rule steps (all occurrences inside the root). */
export function addRuleCases(c: RootCorpus): void {
  const { model } = c;
  const steps = model.rulePlans.get(c.rootType) ?? [];
  for (const step of steps) {
    const at = step.at;
    const target = model.occurrences.get(c.rootType)?.find((o) => o.pattern === at)?.typeName as string;
    const ttype = typeNamed(model, target);
    const where = whereSlug(concretePointer(at));
    const tag = (field: string): string => (at === "" ? slug(field) : `${where}-${slug(field)}`);
    const rs = ruleSlug(step.rule);
    const field = step.field ?? "";
    switch (step.check) {
      case "equals_wire_version": {
        const variants = at === "" ? WRONG_VERSIONS : WRONG_VERSIONS.slice(0, 1);
        for (const [name, value] of variants) {
          const { doc, pointer } = c.breakRule(step.rule, at, [field], (o) => {
            o[field] = value;
          });
          c.add({
            stem: `invalid-${rs}-${tag(field)}-${name}`,
            expect: "invalid",
            rule: step.rule,
            pointer,
            description: `${describeWhere(c.rootType, at, field)} is ${JSON.stringify(value)}, not the current wire version`,
            data: doc,
          });
        }
        c.add({
          stem: `valid-${rs}-${tag(field)}-current`,
          expect: "valid",
          description: `${describeWhere(c.rootType, at, field)} equals the current wire version (spec/wire-version.json)`,
          data: c.edit(at, [], () => undefined),
        });
        break;
      }
      case "non_empty_string": {
        const value = (v: string): JsonValue => (step.each ? [v] : v);
        const { doc, pointer } = c.breakRule(step.rule, at, [field], (o) => {
          o[field] = value("");
        });
        c.add({
          stem: `invalid-${rs}-${tag(field)}-empty`,
          expect: "invalid",
          rule: step.rule,
          pointer,
          description: `${describeWhere(c.rootType, at, field)}${step.each ? "[0]" : ""} is the empty string`,
          data: doc,
        });
        c.add({
          stem: `valid-${rs}-${tag(field)}-one-char`,
          expect: "valid",
          description: `${describeWhere(c.rootType, at, field)}${step.each ? "[0]" : ""} is one character long (the shortest non-empty identifier)`,
          data: c.edit(at, [field], (o) => {
            o[field] = value("x");
          }),
        });
        break;
      }
      case "required_when":
      case "forbidden_when": {
        const when = step.when as NonNullable<RuleStep["when"]>;
        const condField = ttype.fields.find((f) => f.name === when.field) as Field;
        const all = enumValuesOf(model, enumNameOf(condField.shape) as string);
        const holding = all.filter((v) => (when.op === "in" ? when.values.includes(v) : !when.values.includes(v)));
        const targetField = ttype.fields.find((f) => f.name === field) as Field;
        for (const [i, v] of holding.entries()) {
          if (step.check === "required_when") {
            const forms: [string, (o: JsonObject) => void][] = [];
            if (targetField.presence !== "required_nullable") forms.push(["absent", (o) => delete o[field]]);
            if (i === 0 || targetField.presence === "required_nullable") forms.push(["null", (o) => (o[field] = null)]);
            for (const [form, apply] of forms) {
              const { doc, pointer } = c.breakRule(step.rule, at, [when.field, field], (o) => {
                o[when.field] = v;
                apply(o);
              });
              c.add({
                stem: `invalid-${rs}-${tag(field)}-${slug(v)}-${form}`,
                expect: "invalid",
                rule: step.rule,
                pointer,
                description: `${when.field}=${v} but ${describeWhere(c.rootType, at, field)} is ${form}`,
                data: doc,
              });
            }
            c.add({
              stem: `valid-${rs}-${tag(field)}-${slug(v)}-present`,
              expect: "valid",
              description: `${when.field}=${v} with ${describeWhere(c.rootType, at, field)} present`,
              data: c.edit(at, [when.field], (o) => {
                o[when.field] = v;
              }),
            });
          } else {
            const { doc, pointer } = c.breakRule(step.rule, at, [when.field, field], (o) => {
              o[when.field] = v;
              o[field] = sampleValue(model, targetField.shape, field);
            });
            c.add({
              stem: `invalid-${rs}-${tag(field)}-${slug(v)}-present`,
              expect: "invalid",
              rule: step.rule,
              pointer,
              description: `${when.field}=${v} with ${describeWhere(c.rootType, at, field)} present`,
              data: doc,
            });
            const forms: [string, (o: JsonObject) => void][] = [["null", (o) => (o[field] = null)]];
            if (targetField.presence !== "required_nullable") forms.push(["absent", (o) => delete o[field]]);
            for (const [form, apply] of forms) {
              c.add({
                stem: `valid-${rs}-${tag(field)}-${slug(v)}-${form}`,
                expect: "valid",
                description: `${when.field}=${v} with ${describeWhere(c.rootType, at, field)} ${form}`,
                data: c.edit(at, [when.field, field], (o) => {
                  o[when.field] = v;
                  apply(o);
                }),
              });
            }
          }
        }
        break;
      }
      case "forbidden_value": {
        for (const v of step.values ?? []) {
          const { doc, pointer } = c.breakRule(step.rule, at, [field], (o) => {
            o[field] = v;
          });
          c.add({
            stem: `invalid-${rs}-${tag(field)}-${slug(v)}`,
            expect: "invalid",
            rule: step.rule,
            pointer,
            description: `${describeWhere(c.rootType, at, field)} is ${v}`,
            data: doc,
          });
        }
        const targetField = ttype.fields.find((f) => f.name === field) as Field;
        const allowed = enumValuesOf(model, enumNameOf(targetField.shape) as string).filter(
          (v) => !(step.values ?? []).includes(v),
        );
        for (const v of allowed.slice(0, 1)) {
          c.add({
            stem: `valid-${rs}-${tag(field)}-${slug(v)}`,
            expect: "valid",
            description: `${describeWhere(c.rootType, at, field)} is ${v}`,
            data: c.edit(at, [field], (o) => {
              o[field] = v;
            }),
          });
        }
        break;
      }
      case "exactly_one_present": {
        const [first, second] = step.fields as [string, string];
        const none = c.breakRule(step.rule, at, [first, second], (o) => {
          delete o[first];
          delete o[second];
        });
        c.add({
          stem: `invalid-${rs}-${where}-neither`,
          expect: "invalid",
          rule: step.rule,
          pointer: none.pointer,
          description: `${describeWhere(c.rootType, at)} has neither ${first} nor ${second}`,
          data: none.doc,
        });
        const nulls = c.breakRule(step.rule, at, [first, second], (o) => {
          o[first] = null;
          o[second] = null;
        });
        c.add({
          stem: `invalid-${rs}-${where}-both-null`,
          expect: "invalid",
          rule: step.rule,
          pointer: nulls.pointer,
          description: `${describeWhere(c.rootType, at)} has ${first} and ${second} both null (null means absent)`,
          data: nulls.doc,
        });
        const both = c.breakRule(step.rule, at, [first, second], (o) => {
          o[first] = sampleString(first);
          o[second] = sampleString(second);
        });
        c.add({
          stem: `invalid-${rs}-${where}-both`,
          expect: "invalid",
          rule: step.rule,
          pointer: both.pointer,
          description: `${describeWhere(c.rootType, at)} has both ${first} and ${second}`,
          data: both.doc,
        });
        for (const [only, other] of [
          [first, second],
          [second, first],
        ] as const) {
          c.add({
            stem: `valid-${rs}-${where}-only-${slug(only)}`,
            expect: "valid",
            description: `${describeWhere(c.rootType, at)} has ${only} and ${other} null`,
            data: c.edit(at, [only, other], (o) => {
              o[only] = sampleString(only);
              o[other] = null;
            }),
          });
        }
        break;
      }
      case "utf8_byte_length_equals": {
        const lengthField = step.lengthField as string;
        const text = "é\u{1F600}";
        for (const [name, declared] of [
          ["code-points", [...text].length],
          ["utf16-units", text.length],
        ] as const) {
          const { doc, pointer } = c.breakRule(step.rule, at, [field, lengthField], (o) => {
            o[field] = text;
            o[lengthField] = declared;
          });
          c.add({
            stem: `invalid-${rs}-${where}-counts-${name}`,
            expect: "invalid",
            rule: step.rule,
            pointer,
            description: `${field} "é😀" is 6 UTF-8 bytes but ${lengthField} is ${declared} (its ${name.replace("-", " ")})`,
            data: doc,
          });
        }
        c.add({
          stem: `valid-${rs}-${where}-multibyte`,
          expect: "valid",
          description: `${field} "é😀" with ${lengthField} 6 (UTF-8 bytes)`,
          data: c.edit(at, [field, lengthField], (o) => {
            o[field] = text;
            o[lengthField] = 6;
          }),
        });
        c.add({
          stem: `valid-${rs}-${where}-empty-body`,
          expect: "valid",
          description: `${field} is the empty string with ${lengthField} 0`,
          data: c.edit(at, [field, lengthField], (o) => {
            o[field] = "";
            o[lengthField] = 0;
          }),
        });
        break;
      }
      case "non_empty_array": {
        const { doc, pointer } = c.breakRule(step.rule, at, [field], (o) => {
          o[field] = [];
        });
        c.add({
          stem: `invalid-${rs}-${tag(field)}-empty`,
          expect: "invalid",
          rule: step.rule,
          pointer,
          description: `${describeWhere(c.rootType, at, field)} is an empty array`,
          data: doc,
        });
        c.add({
          stem: `valid-${rs}-${tag(field)}-one`,
          expect: "valid",
          description: `${describeWhere(c.rootType, at, field)} lists one entry`,
          data: c.edit(at, [], () => undefined),
        });
        break;
      }
      case "fields_differ": {
        const fields = step.fields as readonly string[];
        const first = fields[0] as string;
        for (const later of fields.slice(1)) {
          const same = c.breakRule(step.rule, at, [first, later], (o) => {
            o[first] = sampleString(first);
            o[later] = sampleString(first);
          });
          c.add({
            stem: `invalid-${rs}-${tag(later)}-equals-${slug(first)}`,
            expect: "invalid",
            rule: step.rule,
            pointer: same.pointer,
            description: `${describeWhere(c.rootType, at, later)} equals ${first}`,
            data: same.doc,
          });
          c.add({
            stem: `valid-${rs}-${tag(later)}-differs`,
            expect: "valid",
            description: `${describeWhere(c.rootType, at, later)} differs from ${first}`,
            data: c.edit(at, [first, later], (o) => {
              o[first] = sampleString(first);
              o[later] = sampleString(later);
            }),
          });
          c.add({
            stem: `valid-${rs}-${tag(later)}-differs-by-case`,
            expect: "valid",
            description: `${describeWhere(c.rootType, at, later)} differs from ${first} only in letter case (the comparison is exact)`,
            data: c.edit(at, [first, later], (o) => {
              o[first] = sampleString(first);
              o[later] = sampleString(first).toUpperCase();
            }),
          });
        }
        break;
      }
    }
  }
}
