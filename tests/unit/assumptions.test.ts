/**
 * Assumptions as data: the table of docs/assumptions.md, routes.ts and the simulator's assumed routes
 * all agree with the one table in provider/client/assumptions.ts, and strict-spec switches off exactly
 * its routes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assumptions } from "pulumi-secops/client";
import { CSV_COLUMNS, createSimulator } from "secops-sim";
import { ROOT } from "../helpers/spawn";

const { ASSUMPTIONS, names, paging, roles, multipart } = assumptions;
const valuesOf = (id: string) => ASSUMPTIONS.find((a) => a.id === id)!.values as Record<string, unknown>;

test("the assumptions table of docs/assumptions.md is the data table, row by row", () => {
  const page = readFileSync(join(ROOT, "docs", "assumptions.md"), "utf8");
  // The page's only table is the assumptions table.
  const rows = page
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| Assumption") && !l.startsWith("| ---"))
    .map((l) =>
      l
        .slice(1, -1)
        .split(" | ")
        .map((c) => c.trim()),
    );
  expect(rows).toEqual(ASSUMPTIONS.map((a) => [a.text, a.usedFor, a.withoutIt]));
  expect(new Set(ASSUMPTIONS.map((a) => a.id)).size).toBe(ASSUMPTIONS.length);
});

test("routes.ts takes its hidden names and values from the table", () => {
  expect(names.sortDirection).toBe(valuesOf("names.sortDirection").name);
  expect(names.serviceProviderScope).toBe(valuesOf("names.serviceProviderScope").name);
  expect([names.page, names.pageSize, paging.pageSize]).toEqual(
    ["page", "pageSize", "size"].map((k) => valuesOf("paging.indicators")[k]),
  );
  expect(roles.writers).toEqual(valuesOf("roles.writers").writers);
  expect(multipart).toEqual(valuesOf("multipart.comment"));
  expect(assumptions.unknownRoute("Cannot GET /endpoint/hva/automation")).toBe(true);
  expect(assumptions.unknownRoute("HVA automation rule hva-1 not found")).toBe(false);
  expect([...CSV_COLUMNS]).toEqual(valuesOf("csv.columns").columns);
});

test("the simulator serves each assumed route, and strict-spec answers exactly those as unknown", async () => {
  const routes = ASSUMPTIONS.flatMap((a) => a.routes ?? []);
  expect(routes.length).toBe(5);
  const [open, strict] = await Promise.all([
    createSimulator({ seed: 3 }),
    createSimulator({ seed: 3, strictSpec: true }),
  ]);
  try {
    const call = async (base: string, key: string, method: string, path: string) => {
      const res = await fetch(base + path.replace("{id}", "x-1"), {
        method,
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await res.json().catch(() => ({}))) as { message?: string };
      return assumptions.unknownRoute(body.message) ? "unknown route" : "served";
    };
    for (const r of routes) {
      expect([r.path, await call(open.url, open.apiKeys.admin, r.method, r.path)]).toEqual([
        r.path,
        "served",
      ]);
      expect([r.path, await call(strict.url, strict.apiKeys.admin, r.method, r.path)]).toEqual([
        r.path,
        "unknown route",
      ]);
    }
    // A route the spec shows stays in strict-spec.
    expect(await call(strict.url, strict.apiKeys.admin, "GET", "/v1/auth/me")).toBe("served");
  } finally {
    await Promise.all([open.close(), strict.close()]);
  }
});
