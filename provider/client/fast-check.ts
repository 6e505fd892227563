/**
 * A compiler of the JSON Schema subset that z.toJSONSchema emits for the response schemas (type,
 * properties, required, items, anyOf, additionalProperties, propertyNames, minimum, maximum) into one
 * plain JavaScript predicate: no error bookkeeping, early exit, each property read once. Anything
 * else makes it give up (the caller then uses ajv). It answers only "valid or not"; zod explains.
 */

type Schema = Record<string, unknown>;

const HANDLED = new Set([
  "$schema",
  "type",
  "properties",
  "required",
  "items",
  "anyOf",
  "additionalProperties",
  "propertyNames",
  "minimum",
  "maximum",
  "description",
]);

class Unsupported extends Error {}

/** Code for a check of one JSON type (`v` the value's expression). */
function typeTest(type: string, v: string): string {
  switch (type) {
    case "string":
      return `typeof ${v} === "string"`;
    case "boolean":
      return `typeof ${v} === "boolean"`;
    case "number":
      return `typeof ${v} === "number"`;
    case "integer":
      return `Number.isInteger(${v})`;
    case "null":
      return `${v} === null`;
    case "array":
      return `Array.isArray(${v})`;
    case "object":
      return `(${v} !== null && typeof ${v} === "object" && !Array.isArray(${v}))`;
    default:
      throw new Unsupported(type);
  }
}

class Compiler {
  readonly fns: string[] = [];
  #n = 0;

  /** Returns the name of a function `(v) => boolean` for `schema`. */
  fn(schema: unknown): string {
    if (
      schema === true ||
      (schema !== null && typeof schema === "object" && Object.keys(schema).length === 0)
    )
      return "_true";
    if (schema === null || typeof schema !== "object" || Array.isArray(schema))
      throw new Unsupported("schema");
    const s = schema as Schema;
    for (const k of Object.keys(s)) if (!HANDLED.has(k)) throw new Unsupported(k);
    const name = `f${this.#n++}`;
    const body: string[] = [];
    if (Array.isArray(s.anyOf))
      body.push(`if (!(${s.anyOf.map((b) => `${this.fn(b)}(v)`).join(" || ")})) return false;`);
    if (s.type !== undefined) {
      const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
      body.push(`if (!(${types.map((t) => typeTest(t, "v")).join(" || ")})) return false;`);
    }
    if (typeof s.minimum === "number")
      body.push(`if (typeof v === "number" && v < ${s.minimum}) return false;`);
    if (typeof s.maximum === "number")
      body.push(`if (typeof v === "number" && v > ${s.maximum}) return false;`);
    body.push(...this.objectChecks(s));
    if (s.items !== undefined) {
      const item = this.fn(s.items);
      if (item !== "_true")
        body.push(
          `if (Array.isArray(v)) for (let i = 0; i < v.length; i++) if (!${item}(v[i])) return false;`,
        );
    }
    this.fns.push(`function ${name}(v) {\n${body.join("\n")}\nreturn true;\n}`);
    return name;
  }

  private objectChecks(s: Schema): string[] {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    const required = new Set((s.required ?? []) as string[]);
    const extra = s.additionalProperties === undefined ? "_true" : this.fn(s.additionalProperties);
    if (s.propertyNames !== undefined && this.fn(s.propertyNames) !== "_true") {
      // JSON keys are always strings: only `{ type: "string" }` is expected here.
      const pn = s.propertyNames as Schema;
      if (pn.type !== "string" || Object.keys(pn).length !== 1) throw new Unsupported("propertyNames");
    }
    const lines: string[] = [];
    for (const [k, sub] of Object.entries(props)) {
      const key = JSON.stringify(k);
      // Own properties only: a missing "toString" must not read Object.prototype's.
      const read = `(Object.hasOwn(v, ${key}) ? v[${key}] : undefined)`;
      const check = this.fn(sub);
      const test = required.has(k)
        ? `x === undefined || !${check}(x)`
        : check === "_true"
          ? "false"
          : `x !== undefined && !${check}(x)`;
      if (test !== "false") lines.push(`x = ${read}; if (${test}) return false;`);
    }
    for (const k of required)
      if (!(k in props)) lines.push(`if (!Object.hasOwn(v, ${JSON.stringify(k)})) return false;`);
    if (extra !== "_true") {
      const known = JSON.stringify(Object.keys(props));
      lines.push(
        `{ const known = new Set(${known}); for (const k in v) if (!known.has(k) && !${extra}(v[k])) return false; }`,
      );
    }
    if (!lines.length) return [];
    return [`if (v !== null && typeof v === "object" && !Array.isArray(v)) { let x;`, ...lines, "}"];
  }
}

/** A predicate for `schema`, or undefined when it uses something this compiler does not handle. */
export function compileCheck(schema: unknown): ((value: unknown) => boolean) | undefined {
  const c = new Compiler();
  let root: string;
  try {
    root = c.fn(schema);
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
  const source = `"use strict";\nconst _true = () => true;\n${c.fns.join("\n")}\nreturn ${root};`;
  return new Function(source)() as (value: unknown) => boolean;
}
