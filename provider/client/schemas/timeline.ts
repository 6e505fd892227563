/** Timeline comments and their attachments. */
import { z } from "zod";
import { fields, optArrayOf, optBool, optInt, optString, optTimestamp } from "./common";

export const attachmentSchema = z
  .looseObject({
    ...fields(optString, "id filename contentType data"),
    size: optInt,
    createdAt: optTimestamp,
  })
  .describe("An image attachment of a timeline comment.");

export const timelineCommentSchema = z
  .looseObject({
    id: z.string().describe("Comment id."),
    authorName: optString.describe(
      "Author display name; falls back to email if the user was deleted or the name cannot be found.",
    ),
    authorId: optString.describe("Author user id; null if the user was deleted."),
    content: optString.describe("Text; empty if deleted."),
    createdAt: optTimestamp.describe("Creation time."),
    updatedAt: optTimestamp.describe("Last update time."),
    deleted: optBool.describe("Soft-deleted flag."),
    attachments: optArrayOf(attachmentSchema).describe("Image attachments."),
  })
  .describe("A timeline comment as the API returns it. `content` is empty when `deleted` is true.");
