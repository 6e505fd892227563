/** High-value-asset automation rules. */
import { z } from "zod";
import { optBool, optEnum, optString } from "./common";
import { HVA_SEARCH_FIELDS } from "../types";

/** `id` is required: a rule cannot be managed without it. */
export const hvaRuleSchema = z
  .looseObject({
    id: z.string(),
    teamId: optString,
    enabled: optBool,
    searchField: optEnum(HVA_SEARCH_FIELDS),
    search: optString,
  })
  .describe("A high-value-asset automation rule as the API returns it.");

/** A list of rules (assumed GET /endpoint/hva/automation): a bare array or `{ data: [...] }`. */
export const hvaRuleListSchema = z.union([
  z.array(hvaRuleSchema),
  z.looseObject({ data: z.array(hvaRuleSchema) }).transform((o) => o.data),
]);

export const hvaRuleCreateSchema = z
  .strictObject({
    field: z
      .string()
      .min(1, "must be a non-empty string")
      .describe("The searched field; `name` is the value the spec shows."),
    search: z.string().min(1, "must be a non-empty string").describe("The search text."),
  })
  .describe("The body of an HVA rule creation (PUT /endpoint/hva/automation).");
