/**
 * Where `secops drift` and `secops hva export` get a team's live rules: the listing that serves the
 * plugin's `List` RPC (resources/listing.ts), so all three find the same rules under the same names.
 */
import type { SecOpsClient } from "../client/client";
import type { HvaRule } from "../client/types";
import { listObjects } from "../resources/listing";

/** Every live HVA rule the client's key can see (its team's), in id order. */
export async function listRules(client: SecOpsClient): Promise<HvaRule[]> {
  return (await listObjects<HvaRule>(client, "secops:index:HvaAutomationRule")).map((o) => o.item);
}
