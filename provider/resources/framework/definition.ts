/**
 * A resource declared once. Each resource's definition (its file beside its implementation) names
 * its token, id, inputs (type, documentation, required or default, limits, replace on change,
 * secret), outputs, how it is read and listed, and what drift compares. From it come:
 * - the inputs check ({@link checkInputs}, zod) with the unknown-name refusals, in both front-ends;
 * - the native Diff's replace set ({@link replacedBy});
 * - the package schema, the native SDK's classes, the dynamic classes and the docs' input tables,
 *   written by `npm run build` (scripts/generate.js, from {@link resourceSchema} and ./codegen.ts);
 * - what the plugin serves (./registry.ts), what `List` lists, and what `secops drift` compares.
 * This module is below every file that uses it: it imports no resource.
 */
import type { z } from "zod";
import type { SecOpsClient } from "../../client/client";
import { closest } from "../../client/options";
import { UNKNOWN } from "./markers";

/** A property bag as it crosses the wire. */
export type Bag = Record<string, unknown>;

/** One property of a resource. */
export interface PropertySpec {
  type: "string" | "boolean" | "integer" | "object" | "array";
  /** For an `object`: the type of each of its values. */
  valuesOf?: "boolean";
  /** For an `array`: the type of each item (`any`: whatever the API returns). */
  items?: "string" | "any";
  /** Shown in the SDK (TSDoc), the schema and the docs. */
  description: string;
  /** Inputs: must be given. Outputs: always present in state. */
  required?: boolean;
  /** An input's value when it is not given. */
  default?: boolean;
  /** A string input's documented limit (characters), refused at check. */
  maxLength?: number;
  /** A change of this input replaces the object. */
  replaceOnChange?: boolean;
  /** Kept secret in state. */
  secret?: boolean;
}

/** One check failure, as Pulumi's CheckFailure. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** How a resource's objects are listed (`List`, `secops drift`, `secops hva export`). */
export interface ListSpec<T extends { id: string } = { id: string }> {
  /** The query keys (the schema's `listInputs`). */
  query: Readonly<Record<string, { type: "string" | "boolean"; description: string }>>;
  /** Every object of the caller's team. */
  fetch(client: SecOpsClient): Promise<T[]>;
  /** A resource name for an object (made unique over the team by a suffix, in id order). */
  nameOf(item: T): string;
  /** Whether an object matches the (known) query. */
  matches(item: T, query: Bag): boolean;
}

/** What `secops drift` compares of a managed object with the live one. */
export interface DriftSpec<T = never> {
  /** `list`: the live objects come from the listing (one request); `read`: one read per object. */
  live: "list" | "read";
  /** The output fields compared, each with the live object's value. */
  fields: Readonly<Record<string, (live: T) => unknown>>;
  /** Only the fields the state holds a value of are compared (a field left unmanaged is null). */
  managedOnly?: boolean;
  /** Live objects no resource holds are reported (unmanaged: made by hand) for adoption. */
  unmanaged?: boolean;
  /** What to do about a drifted object, and about one deleted out of band (`{urn}`: its URN). */
  advice: { drifted: string; deleted: string };
}

/** A resource, declared once. */
export interface ResourceDefinition<T extends { id: string } = { id: string }> {
  /** The class name (PascalCase), which programs use as `secops.<name>`. */
  name: string;
  /** The type token, `secops:index:<name>`. */
  token: string;
  /** The implementation module under `resources/` (the dynamic shim loads it by the package's name). */
  module: string;
  /** What the resource is; the first sentence is its summary. */
  description: string;
  /** What its id is, and how an existing object is imported. */
  id: string;
  /** A one-line declaration in a program (`new X("name", {...})` without the class prefix). */
  example: string;
  inputs: Readonly<Record<string, PropertySpec>>;
  outputs: Readonly<Record<string, PropertySpec>>;
  /** Failures no single property can tell (e.g. "set at least one flag"), after the properties' own. */
  refine?(inputs: Bag): CheckFailure[];
  /** The inputs a program declares for an object read by import: its current values. */
  importInputs(outputs: Bag): Bag;
  /** Reads one live object by id (`secops drift` for `live: "read"`). */
  read(client: SecOpsClient, id: string): Promise<T>;
  list?: ListSpec<T>;
  drift: DriftSpec<T>;
}

/** A data source (a provider function, `secops:index:getX`), declared once like a resource. */
export interface FunctionDefinition {
  /** The function's name, e.g. `getIdentity`. */
  name: string;
  token: string;
  description: string;
  /** Its arguments (none when absent), and what they are as a whole. */
  inputs?: { description: string; properties: Readonly<Record<string, PropertySpec>> };
  /** Its result, and what it is as a whole. */
  outputs: { description: string; properties: Readonly<Record<string, PropertySpec>> };
  /** Runs it with a provider instance's client (the native invoke's body; the data source's too). */
  call(client: SecOpsClient, args: Bag): Promise<unknown>;
}

/** The type of a `pulumi.dynamic` resource of this package, as the engine records it. */
export const dynamicType = (def: { name: string }) => `pulumi-nodejs:dynamic/secops:${def.name}`;

const present = (v: unknown) => v !== undefined && v !== null;

/** The property names the dynamic front-end sends: inputs, and the outputs it seeds as undefined. */
export const knownNames = <T extends { id: string }>(def: ResourceDefinition<T>): string[] => [
  ...new Set([...Object.keys(def.inputs), ...Object.keys(def.outputs)]),
];

/** Inputs with the definition's defaults for what was not given. */
export function withDefaults<T extends { id: string }>(def: ResourceDefinition<T>, inputs: Bag): Bag {
  const out = { ...inputs };
  for (const [k, spec] of Object.entries(def.inputs))
    if (spec.default !== undefined && !present(out[k])) out[k] = spec.default;
  return out;
}

/** The default of each input that has one. */
export const defaultsOf = <T extends { id: string }>(def: ResourceDefinition<T>): Bag =>
  Object.fromEntries(
    Object.entries(def.inputs)
      .filter(([, s]) => s.default !== undefined)
      .map(([k, s]) => [k, s.default]),
  );

/** The zod schema of one input, with the messages the provider has always given. */
function inputSchema(zod: typeof z, name: string, spec: PropertySpec): z.ZodType {
  if (spec.type === "boolean") {
    const b = zod.boolean({ error: `${name} must be a boolean` });
    return spec.required ? b : b.nullish();
  }
  if (spec.type === "integer") {
    const n = zod.number({ error: `${name} must be an integer` }).int(`${name} must be an integer`);
    return spec.required ? n : n.nullish();
  }
  if (spec.type !== "string") throw new Error(`${name}: checkInputs takes no ${spec.type} input`);
  let s = zod
    .string({ error: `${name} must be a non-empty string` })
    .refine((v) => v.trim() !== "", { error: `${name} must be a non-empty string`, abort: true })
    // eslint-disable-next-line no-control-regex
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), {
      error: `${name} must not contain control characters (such as NUL or a line break)`,
    });
  const max = spec.maxLength;
  if (max !== undefined)
    s = s.refine((v) => v.length <= max, {
      error: (issue) => `${name} is ${String(issue.input).length} characters long; the limit is ${max}`,
    });
  return spec.required ? s : s.nullish();
}

const schemas = new WeakMap<object, z.ZodType>();

/** The definition's inputs as one zod object (built once, with zod loaded then). */
function inputsSchema<T extends { id: string }>(def: ResourceDefinition<T>): z.ZodType {
  let schema = schemas.get(def);
  if (!schema) {
    const { z: zod } = require("zod") as typeof import("zod");
    const shape = Object.fromEntries(
      Object.entries(def.inputs).map(([k, spec]) => [k, inputSchema(zod, k, spec)]),
    );
    schema = zod.looseObject(shape);
    schemas.set(def, schema);
  }
  return schema;
}

/** Unknown names, each with the closest known one. */
function unknownNames<T extends { id: string }>(def: ResourceDefinition<T>, news: Bag): CheckFailure[] {
  const names = knownNames(def);
  return Object.keys(news)
    .filter((k) => k !== "__provider" && !names.includes(k))
    .map((key) => {
      const near = closest(key, names);
      return {
        property: key,
        reason: `${key} is not an input of ${def.name}${near ? `; did you mean ${near}?` : ""}`,
      };
    });
}

/**
 * Checks inputs without network: one failure per problem, named by property (an input not known
 * during preview is not judged). The inputs come back with defaults applied when there is none.
 */
export function checkInputs<T extends { id: string }>(
  def: ResourceDefinition<T>,
  news: unknown,
): { inputs: Bag; failures: CheckFailure[] } {
  if (news === null || typeof news !== "object" || Array.isArray(news))
    return {
      inputs: {},
      failures: [{ property: "", reason: `the inputs of ${def.name} must be an object` }],
    };
  const bag = news as Bag;
  const failures = unknownNames(def, bag);
  const parsed = inputsSchema(def).safeParse(bag);
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const property = String(issue.path[0] ?? "");
      if (bag[property] !== UNKNOWN) failures.push({ property, reason: issue.message });
    }
  failures.push(...(def.refine?.(bag) ?? []));
  return failures.length ? { inputs: bag, failures } : { inputs: withDefaults(def, bag), failures };
}

/** The inputs whose change replaces the object, among those that changed from `olds` to `news`. */
export function replacedBy<T extends { id: string }>(
  def: ResourceDefinition<T>,
  olds: Bag,
  news: Bag,
): string[] {
  return Object.entries(def.inputs)
    .filter(([k, spec]) => spec.replaceOnChange && (news[k] === UNKNOWN || olds[k] !== news[k]))
    .map(([k]) => k);
}

/** Output-only names a program must not set (the API decides them), as check failures. */
export function outputOnlyGiven<T extends { id: string }>(
  def: ResourceDefinition<T>,
  news: Bag,
): CheckFailure[] {
  return Object.keys(def.outputs)
    .filter((k) => !(k in def.inputs) && present(news[k]))
    .map((k) => ({
      property: k,
      reason: `${k} is an output of ${def.name}, set by the API; it cannot be given as an input`,
    }));
}
