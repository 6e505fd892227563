/** The schemas of the client's arguments that are not API objects. */
import { z } from "zod";
import { SORT_DIRECTIONS } from "../types";

/** The argument of editTimelineComment. */
export const commentEditSchema = z.strictObject({
  content: z.string().optional(),
  files: z
    .array(
      z.strictObject({
        filename: z.string().min(1, "must be a non-empty string"),
        contentType: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a MIME type such as image/png"),
        data: z.instanceof(Uint8Array, { error: "must be a Uint8Array" }),
      }),
    )
    .optional(),
});

/** The options of listCaseThreatIndicators. */
export const indicatorOptionsSchema = z.strictObject({ sortDirection: z.enum(SORT_DIRECTIONS).optional() });
/** A boolean argument. */
export const booleanSchema = z.boolean({ error: "must be a boolean" });

/** The options of the CSV export. */
export const csvExportOptionsSchema = z.strictObject({
  deadlineMs: z
    .number({ error: "must be a number" })
    .int("must be an integer")
    .positive("must be positive")
    .optional(),
});
