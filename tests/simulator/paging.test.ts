/**
 * Paging that works with either convention (the spec hides it): pages counted from 0 or from 1, a
 * server that caps the page size below what was asked, de-duplication by id, and never a silent subset.
 */
import { SecOpsClient } from "pulumi-secops";
import { createSimulator, type Simulator } from "secops-sim";

const sims: Simulator[] = [];
const clients: SecOpsClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

async function listAll(options: { pageBase?: 0 | 1; maxPageSize?: number; strictSpec?: boolean }) {
  const sim = await createSimulator({ seed: 9, bigCase: 250, ...options });
  sims.push(sim);
  const client = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
  clients.push(client);
  await sim.control.resetStats();
  const list = client.listCaseThreatIndicators("case-big", { sortDirection: "asc" });
  return { list, requests: async () => (await sim.control.stats()).requests };
}

const expected = Array.from({ length: 250 }, (_, i) => `det-case-big-${String(i + 1).padStart(5, "0")}`);
const ROUTE = "GET /v1/cases/{id}/threat-indicators";

test.each([
  [1, 500, 4],
  [0, 500, 3],
  [1, 7, 37],
  [0, 7, 36],
] as const)(
  "pages from %i, size cap %i: all 250 indicators once, in order, in %i requests",
  async (pageBase, maxPageSize, sent) => {
    const { list, requests } = await listAll({ pageBase, maxPageSize });
    const { data, totalCount } = await list;
    expect(totalCount).toBe(250);
    expect(data.map((d) => d.id)).toEqual(expected);
    // 1-based: page 1 repeats the first page once; 0-based: every request brings new indicators.
    expect((await requests())[ROUTE]).toBe(sent);
  },
);

test("a server that ignores the paging parameters (strict-spec) fails with SECOPS_INCOMPLETE, not a subset", async () => {
  const { list } = await listAll({ strictSpec: true });
  await expect(list).rejects.toMatchObject({
    code: "SECOPS_INCOMPLETE",
    message:
      "GET /v1/cases/case-big/threat-indicators: the server stopped making progress at page 2 with 50 of 250 indicators; refusing to return a partial list",
  });
});

test("a case that fits in the first page costs one request", async () => {
  const sim = await createSimulator({ seed: 9, pageBase: 0 });
  sims.push(sim);
  const client = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
  clients.push(client);
  await sim.control.resetStats();
  const { data, totalCount } = await client.listCaseThreatIndicators("case-002");
  expect(data).toHaveLength(totalCount);
  expect((await sim.control.stats()).requests[ROUTE]).toBe(1);
});
