/** The typed client, its errors, schemas and the assumptions module. */
export { SecOpsClient, type CommentFile, type TimelineCommentEdit } from "./client";
export type { SecOpsClientOptions } from "./options";
export * from "./errors";
export * from "./schemas";
export * as assumptions from "./routes";
