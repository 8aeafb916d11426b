/**
 * JSON text of an in-memory wire value, refusing what `JSON.stringify` would silently change or
 * drop; used to encode frames (runtime/rpc/frame.ts),
 * reverse-request results and requests.
 */
import { exoticKind } from "./serialize.js";

/** Thrown by {@link toWireJson} for a value JSON cannot represent faithfully. */
export class WireSerializeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WireSerializeError";
  }
}

function faithful(this: unknown, key: string, value: unknown): unknown {
  switch (typeof value) {
    case "bigint":
      throw new WireSerializeError(`value at key "${key}" is a BigInt, which JSON cannot represent`);
    case "number":
      if (!Number.isFinite(value))
        throw new WireSerializeError(`value at key "${key}" is ${value}, which JSON cannot represent`);
      return value;
    case "function":
    case "symbol":
      throw new WireSerializeError(`value at key "${key}" is a ${typeof value}, which JSON cannot represent`);
    case "undefined":
      if (Array.isArray(this))
        throw new WireSerializeError(`array element ${key} is undefined, which JSON cannot represent`);
      return value;
    case "object": {
      const exotic = value === null ? null : exoticKind(value);
      if (exotic !== null)
        throw new WireSerializeError(`value at key "${key}" is ${exotic}, which JSON cannot represent`);
      return value;
    }
    default:
      return value;
  }
}

/**
 * JSON text of a wire value, refusing what `JSON.stringify` would silently change or drop: BigInt,
 * NaN/Infinity, functions, symbols, `undefined` array elements, cycles, and objects it would write
 * as `{}` (Map, Set, WeakMap, WeakSet, Promise, binary data). An `undefined` object
 * member is an absent member. Throws {@link WireSerializeError} (also when reading the value throws,
 * e.g. a getter or a Proxy trap, or when it nests too deeply for the serializer).
 */
export function toWireJson(value: unknown): string {
  try {
    return JSON.stringify(value, faithful);
  } catch (error) {
    if (error instanceof WireSerializeError) throw error;
    throw new WireSerializeError(error instanceof Error ? error.message : String(error));
  }
}
