/** What the engine tests count in the simulator after each step (not what a tool printed). */
import type { Simulator } from "secops-sim";

/** Every team's rules as "team search enabled" lines, sorted. */
export async function rules(sim: Simulator): Promise<string[]> {
  const { rules } = await sim.control.state();
  return rules.map((r) => `${r.teamId} ${r.search} ${r.enabled}`).sort();
}

/** POST routes of the spec that only read (a count, an export). */
const READING_POSTS = ["POST /v1/integration/count", "POST /v1/cases/export/csv"];

/** Requests that write (PUT, PATCH, DELETE, and POSTs that are not reads) since the last resetStats. */
export async function writes(sim: Simulator): Promise<number> {
  const { requests } = await sim.control.stats();
  return Object.entries(requests)
    .filter(([k]) => /^(PUT|PATCH|POST|DELETE) /.test(k) && !READING_POSTS.some((r) => k.startsWith(r)))
    .reduce((a, [, n]) => a + n, 0);
}
