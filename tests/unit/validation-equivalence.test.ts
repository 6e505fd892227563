/**
 * The fast path of response validation (ajv, compiled from the zod schemas) and zod give the same
 * verdict on the same corpus: valid payloads, and every nested value of them replaced by a wrong type
 * (or a required field removed). And a refused body is still reported by zod, naming the JSON path.
 */
import { toJSONSchema, type z } from "zod";
import { compileCheck } from "../../provider/client/fast-check";
import {
  directoryUserSchema,
  fastAccepts,
  hvaRuleSchema,
  identitySchema,
  parseResponse,
  threatIndicatorPageSchema,
} from "../../provider/client/validate";
import { detection } from "../../provider/simulator/detections";
import { directoryUsers } from "../../provider/simulator/seed";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every path to a value inside `v` (objects and arrays included, the root excluded). */
function paths(v: Json, at: (string | number)[] = []): (string | number)[][] {
  if (v === null || typeof v !== "object") return [];
  const entries: [string | number, Json][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
  return entries.flatMap(([k, x]) => [[...at, k], ...paths(x, [...at, k])]);
}

/** Wrong-typed stand-ins for a value. */
function wrongTypes(v: Json): Json[] {
  if (v === null) return [];
  if (typeof v === "string") return [42, true, {}];
  if (typeof v === "number") return ["7", Number.isInteger(v) ? 1.5 : "x"];
  if (typeof v === "boolean") return ["true", 0];
  if (Array.isArray(v)) return [{}, "list"];
  return [[], "object", 3];
}

function withValue(root: Json, path: (string | number)[], value: Json | undefined): Json {
  const copy = structuredClone(root) as Record<string | number, Json>;
  let node = copy as Record<string | number, Json>;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, Json>;
  const last = path[path.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy as Json;
}

function verdicts(schema: z.ZodType, samples: Json[]) {
  let valid = 0;
  const disagree: string[] = [];
  for (const s of samples) {
    const zod = schema.safeParse(s).success;
    if (zod) valid++;
    if (fastAccepts(schema, s) !== zod) disagree.push(JSON.stringify(s).slice(0, 200));
  }
  return { total: samples.length, valid, disagree };
}

function corpus(valid: Json[]): Json[] {
  const out: Json[] = [...valid];
  const base = valid[0];
  for (const p of paths(base)) {
    const value = p.reduce<Json>((n, k) => (n as Record<string | number, Json>)[k], base);
    for (const wrong of wrongTypes(value)) out.push(withValue(base, p, wrong));
    if (typeof p[p.length - 1] === "string") out.push(withValue(base, p, undefined));
  }
  out.push(null, [], "text", 5, { ...(base as object), extraKey: { kept: true } });
  return out;
}

const detections = Array.from(
  { length: 40 },
  (_, i) =>
    detection(
      3 + i,
      `case-00${i % 7}`,
      "C-1",
      "team-acme",
      i,
      directoryUsers(3, "team-acme", 1)[0],
    ) as unknown as Json,
);

test("detection pages: same verdict on every nested wrong type, every removed field and every valid page", () => {
  const pages = detections.map((d, i) => ({ data: [d, detections[(i + 1) % 40]], totalCount: 2 }) as Json);
  const r = verdicts(threatIndicatorPageSchema, corpus(pages));
  expect(r.disagree).toEqual([]);
  expect(r.total).toBeGreaterThan(1000);
  expect(r.valid).toBeGreaterThan(40); // valid pages, removed optional fields, unknown keys kept
  expect(r.total - r.valid).toBeGreaterThan(700); // most wrong types are refused
});

test("identity, HVA rule and directory user: same verdicts", () => {
  const identity = {
    email: "a@b.c",
    displayName: "A",
    id: "u-1",
    role: "ADMIN",
    teamId: "t",
    parentTeamId: "t",
    serviceProvider: false,
  };
  const rule = { id: "hva-1", teamId: "t", enabled: true, searchField: "name", search: "dc-*" };
  const users = directoryUsers(5, "team-acme", 10) as unknown as Json[];
  for (const [schema, valid] of [
    [identitySchema, [identity]],
    [hvaRuleSchema, [rule]],
    [directoryUserSchema, users],
  ] as const) {
    const r = verdicts(schema, corpus(valid as unknown as Json[]));
    expect(r.disagree).toEqual([]);
    expect(r.total - r.valid).toBeGreaterThan(5);
  }
});

test("a body the fast path accepts comes back as it is, unknown keys kept; a refused one names the JSON path", () => {
  const page = { data: [{ ...(detections[0] as object), newField: [1, 2] }], totalCount: 1, cursor: "c" };
  expect(parseResponse(threatIndicatorPageSchema, page, "GET", "/v1/cases/c/threat-indicators")).toBe(page);
  const broken = withValue(page as unknown as Json, ["data", 0, "endpoints", 0, "hva"], "yes");
  expect(() => parseResponse(threatIndicatorPageSchema, broken, "GET", "/p")).toThrow(
    expect.objectContaining({
      code: "SECOPS_RESPONSE_INVALID",
      field: "$.data[0].endpoints[0].hva",
      message:
        "GET /p: response $.data[0].endpoints[0].hva does not fit the API schema: Invalid input: expected boolean, received string",
    }),
  );
});

test("the small compiler handles every response schema; anything else goes to ajv, never unchecked", () => {
  for (const schema of [threatIndicatorPageSchema, identitySchema, hvaRuleSchema, directoryUserSchema])
    expect(typeof compileCheck(toJSONSchema(schema))).toBe("function");
  // A keyword it does not know (pattern, $ref, ...) makes it give up rather than ignore it.
  expect(compileCheck({ type: "string", pattern: "^a" })).toBeUndefined();
  expect(compileCheck({ type: "object", properties: { a: { $ref: "#/x" } } })).toBeUndefined();
  // A missing property is read as missing, never as Object.prototype's member of that name.
  const check = compileCheck({ type: "object", properties: { toString: { type: "string" } } })!;
  expect([check({}), check({ toString: "x" }), check({ toString: 1 })]).toEqual([true, true, false]);
});
