/**
 * The zod schemas of the API's resources and the two parsers built on them. Internal: the public
 * types are the plain interfaces in `../types` (checked against these schemas by a test).
 */
export { idSchema, jsonPath, parseInput, parseResponse } from "./common";
export { identitySchema } from "./identity";
export {
  clusterMemberSchema,
  directoryUserListSchema,
  directoryUserSchema,
  directoryUserUpdateSchema,
  endpointGroupAssignmentSchema,
  licenseSchema,
  userGroupAssignmentSchema,
} from "./directory";
export { attachmentSchema, timelineCommentSchema } from "./timeline";
export { hvaRuleCreateSchema, hvaRuleListSchema, hvaRuleSchema } from "./hva";
export { integrationCountSchema, integrationFilterSchema } from "./integration";
export {
  artifactSchema,
  chatOpsActionSchema,
  containmentActionSchema,
  customDetectionSchema,
  detectionSchema,
  domainSchema,
  endpointSchema,
  externalCustomDetectionSchema,
  fileSchema,
  ipSchema,
  locationSchema,
  processSchema,
  processTreeSchema,
  threatIndicatorPageSchema,
  userAgentSchema,
  verdictSettingSchema,
} from "./detection";
export { errorBodySchema } from "./errorBody";
