/** The API's zod schemas and parsers; `../api-types.ts` is written from each described `<name>Schema`. */
export { idSchema, jsonPath, parseInput, parseResponse } from "./common";
export { identitySchema } from "./identity";
export {
  clusterMemberSchema,
  directoryUserListSchema,
  directoryUserSchema,
  directoryUserUpdateSchema,
  endpointGroupAssignmentSchema,
  groupAssignmentSchema,
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
export { booleanSchema, commentEditSchema, csvExportOptionsSchema, indicatorOptionsSchema } from "./inputs";
