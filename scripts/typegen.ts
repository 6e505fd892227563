/**
 * Writes the public types of the API's objects (provider/client/api-types.ts) from the schemas, for
 * `npm run build` (scripts/generate.js). The types are plain interfaces rather than `z.output<...>`:
 * programs then compile without zod's declarations, which fail a `pulumi new typescript` tsconfig
 * (no skipLibCheck, no esModuleInterop: zod's locales use default imports). TSDoc comes from
 * `.describe()`, the known values of open enumerations from their `knownValues` metadata.
 */
import { z } from "zod";
import * as S from "../provider/client/schemas";

/**
 * The public types: every exported `<name>Schema` with a description, as `<Name>`; nested schemas
 * among them print as their name.
 */
const TYPES = Object.entries(S as Record<string, unknown>).flatMap(([key, schema]) =>
  key.endsWith("Schema") && schema instanceof z.ZodType && schema.description
    ? [[key[0].toUpperCase() + key.slice(1, -"Schema".length), schema] as const]
    : [],
);

type Def = {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  shape?: Record<string, z.ZodType>;
  entries?: Record<string, string>;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
};
const defOf = (s: z.ZodType) => s._zod.def as unknown as Def;
const names = new Map<z.ZodType, string>(TYPES.map(([name, schema]) => [schema, name]));
const literal = (v: string) => JSON.stringify(v);
const doc = (text: string | undefined, indent = "") => (text ? `${indent}/** ${text} */\n` : "");

/** The TypeScript of a schema's output; `top` prints in full even when it has a name. */
function print(s: z.ZodType, top = false): string {
  const name = names.get(s);
  if (name && !top) return name;
  const d = defOf(s);
  switch (d.type) {
    case "string": {
      const known = z.globalRegistry.get(s)?.knownValues as readonly string[] | undefined;
      return known ? [...known.map(literal), "(string & {})"].join(" | ") : "string";
    }
    case "number":
    case "boolean":
    case "unknown":
      return d.type;
    case "optional":
      return print(d.innerType!);
    case "nullable":
      return `${print(d.innerType!)} | null`;
    case "array": {
      const element = print(d.element!);
      return element.includes(" | ") ? `(${element})[]` : `${element}[]`;
    }
    case "union":
      return d.options!.map((o) => print(o)).join(" | ");
    case "enum":
      return Object.values(d.entries!).map(literal).join(" | ");
    case "record":
      return `Record<${print(d.keyType!)}, ${print(d.valueType!)}>`;
    case "object":
      return `{\n${Object.entries(d.shape!)
        .map(([k, v]) => field(k, v))
        .join("")}}`;
  }
  throw new Error(`typegen: no TypeScript for a zod ${d.type}`);
}

/** One field: its description, `?` when optional. */
function field(key: string, s: z.ZodType): string {
  const optional = defOf(s).type === "optional" ? "?" : "";
  return `${doc(s.description)}${key}${optional}: ${print(s)};\n`;
}

/** The source of api-types.ts (before formatting), its first line the given mark. */
export function apiTypesSource(generated: string): string {
  return [
    `// ${generated}`,
    "/**",
    " * The public types of the API's objects, written from the zod schemas in provider/client/schemas.",
    " * Responses keep keys the API adds beyond these fields: reach them with `WithUnknownKeys`.",
    " */",
    ...TYPES.map(([name, s]) => `${doc(s.description)}export interface ${name} ${print(s, true)}\n`),
  ].join("\n");
}
