/**
 * A resource declared once (`<resource>/definition.ts`), and what is made of it: types, the inputs
 * check, the Diff of plain inputs, import and drift defaults, and what `npm run build` writes.
 */
import type { CheckFailure } from "@pulumi/pulumi/dynamic";
import type { z } from "zod";
import type { SecOpsClient } from "../../client/client";
import { didYouMean } from "../../client/options";
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
  /**
   * Outputs: the API object's field it is read from (default: its own name), or `false` when the
   * implementation sets it. An input that is such an output is what import declares and drift compares.
   */
  api?: string | false;
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
  /** The type token, `secops:index:<name>` (written by {@link defineResource}). */
  token: string;
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

/** What a resource's own file writes: {@link defineResource} adds the rest. */
export interface ResourceSpec<T extends { id: string } = { id: string }> extends Omit<
  ResourceDefinition<T>,
  "token" | "importInputs" | "drift"
> {
  /** Default: the inputs that are outputs read from the API, at their current values. */
  importInputs?(outputs: Bag): Bag;
  drift: Omit<DriftSpec<T>, "fields"> & {
    /** Default: the inputs that are outputs read from the API, each against its API field. */
    fields?: DriftSpec<T>["fields"];
  };
}

/** What the inputs check needs of a definition. */
type Declared = Pick<ResourceDefinition, "name" | "inputs" | "outputs" | "refine">;

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

type Props = Readonly<Record<string, PropertySpec>>;

/** The TypeScript type of each property type's value (an array's: by its items). */
type Values = { string: string; boolean: boolean; integer: number; object: Record<string, boolean | null> };
/** The TypeScript type of a property's value. */
type ValueOf<S extends PropertySpec> = S["type"] extends keyof Values
  ? Values[S["type"]]
  : S extends { items: "string" }
    ? string[]
    : unknown[];

type Flat<T> = { -readonly [K in keyof T]: T[K] };
/** The keys of `P` whose specs extend `Has`. */
type KeysWith<P extends Props, Has> = { [K in keyof P]: P[K] extends Has ? K : never }[keyof P];

/** The values of `P`: those whose specs extend `Always` always present, the others may be absent (or `Or`). */
type Typed<P extends Props, Always, Or = never> = Flat<
  { [K in KeysWith<P, Always>]: ValueOf<P[K]> } & {
    [K in Exclude<keyof P, KeysWith<P, Always>>]?: ValueOf<P[K]> | Or;
  }
>;

/** A resource's inputs after check (defaults applied), from its definition (`as const`). */
export type InputsOf<D extends { inputs: Props }> = Typed<
  D["inputs"],
  { required: true } | { default: boolean }
>;

/** A resource's outputs in state: a required one always has a value, another may be absent or null. */
export type OutputsOf<D extends { outputs: Props }> = Typed<D["outputs"], { required: true }, null>;

/** The outputs read from the API's object (every output but those marked `api: false`). */
export type ApiOutputsOf<D extends { outputs: Props }> = Pick<
  OutputsOf<D>,
  Exclude<keyof D["outputs"], KeysWith<D["outputs"], { api: false }>> & keyof OutputsOf<D>
>;

/** What {@link defineResource} adds to what a resource's file writes. */
export interface Derived {
  token: string;
  importInputs(outputs: Bag): Bag;
  drift: { fields: Readonly<Record<string, (live: never) => unknown>> };
}

/**
 * A resource's definition from what its file writes (`{...} as const satisfies ResourceSpec<T>`): the
 * token, and unless given, import inputs and drift fields (the inputs that are outputs read from the API).
 */
export function defineResource<S extends { name: string; inputs: Props; outputs: Props; drift: object }>(
  spec: S,
): S & Derived {
  // The inputs that are outputs read from the API: each with the API object's field it is read from.
  const pairs = Object.keys(spec.inputs)
    .filter((k) => k in spec.outputs && spec.outputs[k].api !== false)
    .map((k) => [k, (spec.outputs[k].api as string | undefined) ?? k]);
  const fields = Object.fromEntries(
    pairs.map(([k, api]) => [k, (live: Record<string, unknown>) => live[api] ?? null]),
  );
  return {
    token: `secops:index:${spec.name}`,
    importInputs: (o: Bag) => Object.fromEntries(pairs.map(([k]) => [k, o[k]]).filter(([, v]) => present(v))),
    ...spec,
    drift: { fields, ...spec.drift },
  } as never;
}

/** The outputs read from an API object, else from `fallback`, else null (state holds no undefined). */
export function fromApi<D extends { outputs: Props }>(
  def: D,
  live: object,
  fallback: Bag = {},
): ApiOutputsOf<D> {
  const from = live as Bag;
  return Object.fromEntries(
    Object.entries(def.outputs)
      .filter(([, spec]) => spec.api !== false)
      .map(([k, spec]) => [k, from[(spec.api as string | undefined) ?? k] ?? fallback[k] ?? null]),
  ) as ApiOutputsOf<D>;
}

/**
 * The Diff of plain inputs: the replace set, and a change when an input that is also an output is unknown
 * or differs from the state. An input left unset without a default is not managed, so never a change.
 */
export function diffInputs(
  def: { inputs: Props; outputs: Props },
  olds: object,
  news: object,
): { changes: boolean; replaces: string[]; deleteBeforeReplace: boolean } {
  const [before, after] = [olds as Bag, news as Bag];
  const replaces = Object.keys(def.inputs).filter(
    (k) => def.inputs[k].replaceOnChange && (after[k] === UNKNOWN || before[k] !== after[k]),
  );
  const changed = Object.entries(def.inputs).filter(([k, spec]) => {
    const value = after[k] ?? spec.default;
    return k in def.outputs && present(value) && value !== (before[k] ?? spec.default);
  });
  return { changes: replaces.length > 0 || changed.length > 0, replaces, deleteBeforeReplace: false };
}

/** The default of each input that has one. */
export const defaultsOf = (def: Declared): Bag =>
  Object.fromEntries(
    Object.entries(def.inputs)
      .filter(([, s]) => s.default !== undefined)
      .map(([k, s]) => [k, s.default]),
  );

/** The zod schema of one input, with the messages the provider has always given. */
function inputSchema(zod: typeof z, name: string, spec: PropertySpec): z.ZodType {
  const max = spec.maxLength;
  let schema: z.ZodType;
  if (spec.type === "boolean") schema = zod.boolean({ error: `${name} must be a boolean` });
  else if (spec.type === "integer")
    schema = zod.number({ error: `${name} must be an integer` }).int(`${name} must be an integer`);
  else if (spec.type === "string")
    schema = zod
      .string({ error: `${name} must be a non-empty string` })
      .refine((v) => v.trim() !== "", { error: `${name} must be a non-empty string`, abort: true })
      // eslint-disable-next-line no-control-regex
      .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), {
        error: `${name} must not contain control characters (such as NUL or a line break)`,
      })
      .refine((v) => max === undefined || v.length <= max, {
        error: (issue) => `${name} is ${String(issue.input).length} characters long; the limit is ${max}`,
      });
  else throw new Error(`${name}: checkInputs takes no ${spec.type} input`);
  return spec.required ? schema : schema.nullish();
}

const schemas = new WeakMap<object, z.ZodType>();

/** The definition's inputs as one zod object (built once, with zod loaded then). */
function inputsSchema(def: Declared): z.ZodType {
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

/**
 * Checks inputs without network: one failure per problem, named by property (an input unknown in
 * preview is not judged). Without failures, the inputs come back with defaults applied.
 */
export function checkInputs(def: Declared, news: unknown): { inputs: Bag; failures: CheckFailure[] } {
  if (news === null || typeof news !== "object" || Array.isArray(news))
    return {
      inputs: {},
      failures: [{ property: "", reason: `the inputs of ${def.name} must be an object` }],
    };
  const bag = news as Bag;
  // Unknown names, each with the closest known one: the dynamic front-end sends the inputs, and the
  // outputs it seeds as undefined.
  const names = [...new Set([...Object.keys(def.inputs), ...Object.keys(def.outputs)])];
  const failures: CheckFailure[] = Object.keys(bag)
    .filter((k) => k !== "__provider" && !names.includes(k))
    .map((k) => ({ property: k, reason: `${k} is not an input of ${def.name}${didYouMean(k, names)}` }));
  const parsed = inputsSchema(def).safeParse(bag);
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const property = String(issue.path[0] ?? "");
      if (bag[property] !== UNKNOWN) failures.push({ property, reason: issue.message });
    }
  failures.push(...(def.refine?.(bag) ?? []));
  if (failures.length) return { inputs: bag, failures };
  // The definition's defaults for what was not given.
  const defaults = Object.entries(defaultsOf(def)).filter(([k]) => !present(bag[k]));
  return { inputs: { ...bag, ...Object.fromEntries(defaults) }, failures };
}

/** {@link checkInputs} as Pulumi's check result, typed (no `failures` key when there is none). */
export function checkResult<I>(def: Declared, news: unknown): { inputs: I; failures?: CheckFailure[] } {
  const { inputs, failures } = checkInputs(def, news);
  return failures.length ? { inputs: inputs as I, failures } : { inputs: inputs as I };
}

/** Output-only names a program must not set (the API decides them), as check failures. */
export function outputOnlyGiven(def: Declared, news: Bag): CheckFailure[] {
  return Object.keys(def.outputs)
    .filter((k) => !(k in def.inputs) && present(news[k]))
    .map((k) => ({
      property: k,
      reason: `${k} is an output of ${def.name}, set by the API; it cannot be given as an input`,
    }));
}
