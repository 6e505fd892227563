/** Timeline comments and their attachments. */
import { z } from "zod";
import { fields, optArrayOf, optBool, optInt, optString, optTimestamp } from "./common";

/** An image attachment of a comment. */
export const attachmentSchema = z.looseObject({
  ...fields("id filename contentType data", optString),
  size: optInt,
  createdAt: optTimestamp,
});

/** A timeline comment. `content` is empty when `deleted` is true. */
export const timelineCommentSchema = z.looseObject({
  id: z.string(),
  ...fields("authorName authorId content", optString),
  ...fields("createdAt updatedAt", optTimestamp),
  deleted: optBool,
  attachments: optArrayOf(attachmentSchema),
});
