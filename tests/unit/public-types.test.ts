/**
 * The public types (provider/client/types/, plain TypeScript) against the zod schemas that
 * validate responses at run time. The type-level checks fail compilation (and so this suite, the
 * typecheck and the build of the tests) when a field is added, removed or retyped on one side only.
 */
import type { z } from "zod";
import * as S from "../../provider/client/schemas";
import { OPEN_ENUMS } from "../../provider/client/schemas/common";
import type * as T from "../../provider/client/types";
import {
  DETECTION_ENUMS,
  EMAIL_DIRECTIONS,
  HEALTH_STATUSES,
  HVA_SEARCH_FIELDS,
  INTEGRATION_TYPES,
  ROLES,
  SERVICE_PROVIDER_SCOPES,
  SORT_DIRECTIONS,
} from "../../provider/client/types";

/** Drops string index signatures (zod's loose objects keep unknown keys), deeply. */
type Strip<X> = X extends readonly (infer U)[]
  ? Strip<U>[]
  : X extends object
    ? { [K in keyof X as string extends K ? never : K]: Strip<X[K]> }
    : X;
type Equal<A, B> = (<V>() => V extends A ? 1 : 2) extends <V>() => V extends B ? 1 : 2 ? true : false;
/** Compiles only when the schema's output has exactly the public type's fields and types. */
function conforms<Schema extends z.ZodType, Public>(
  ok: Equal<Strip<z.output<Schema>>, Strip<Public>>,
): boolean {
  return ok;
}

test("every response schema has exactly the fields of its public type", () => {
  const checks = [
    conforms<typeof S.identitySchema, T.Identity>(true),
    conforms<typeof S.directoryUserSchema, T.DirectoryUser>(true),
    conforms<typeof S.userGroupAssignmentSchema, T.UserGroupAssignment>(true),
    conforms<typeof S.endpointGroupAssignmentSchema, T.EndpointGroupAssignment>(true),
    conforms<typeof S.licenseSchema, T.License>(true),
    conforms<typeof S.clusterMemberSchema, T.ClusterMember>(true),
    conforms<typeof S.hvaRuleSchema, T.HvaRule>(true),
    conforms<typeof S.attachmentSchema, T.Attachment>(true),
    conforms<typeof S.timelineCommentSchema, T.TimelineComment>(true),
    conforms<typeof S.endpointSchema, T.Endpoint>(true),
    conforms<typeof S.fileSchema, T.File>(true),
    conforms<typeof S.processSchema, T.Process>(true),
    conforms<typeof S.locationSchema, T.Location>(true),
    conforms<typeof S.ipSchema, T.Ip>(true),
    conforms<typeof S.domainSchema, T.Domain>(true),
    conforms<typeof S.artifactSchema, T.Artifact>(true),
    conforms<typeof S.chatOpsActionSchema, T.ChatOpsAction>(true),
    conforms<typeof S.containmentActionSchema, T.ContainmentAction>(true),
    conforms<typeof S.verdictSettingSchema, T.VerdictSetting>(true),
    conforms<typeof S.userAgentSchema, T.UserAgent>(true),
    conforms<typeof S.processTreeSchema, T.ProcessTree>(true),
    conforms<typeof S.customDetectionSchema, T.CustomDetection>(true),
    conforms<typeof S.externalCustomDetectionSchema, T.ExternalCustomDetection>(true),
    conforms<typeof S.detectionSchema, T.Detection>(true),
    conforms<typeof S.threatIndicatorPageSchema, T.ThreatIndicatorPage>(true),
    conforms<typeof S.errorBodySchema, T.ErrorBody>(true),
    conforms<typeof S.integrationCountSchema, T.IntegrationCount>(true),
  ];
  expect(checks.every(Boolean)).toBe(true);
});

test("every request schema accepts exactly its public type", () => {
  const inputs: boolean[] = [
    Equal<z.input<typeof S.directoryUserUpdateSchema>, T.DirectoryUserUpdate>(true),
    Equal<z.input<typeof S.hvaRuleCreateSchema>, T.HvaRuleCreate>(true),
    Equal<z.input<typeof S.integrationFilterSchema>, T.IntegrationFilter>(true),
  ];
  expect(inputs.every(Boolean)).toBe(true);
  function Equal<A, B>(ok: Equal<A, B>): boolean {
    return ok;
  }
});

test("the open enumerations of the schemas know the values the public types list", () => {
  const known = (schema: z.ZodType) => {
    let s = schema as z.ZodType & { _zod: { def: { innerType?: z.ZodType } } };
    while (s._zod.def.innerType) s = s._zod.def.innerType as typeof s;
    return OPEN_ENUMS.get(s);
  };
  expect(known(S.identitySchema.shape.role)).toEqual(ROLES);
  expect(known(S.hvaRuleSchema.shape.searchField)).toEqual(HVA_SEARCH_FIELDS);
  expect(known(S.directoryUserSchema.shape.emailDirection)).toEqual(EMAIL_DIRECTIONS);
  expect(known(S.detectionSchema.shape.status)).toEqual(DETECTION_ENUMS.status);
  expect(S.integrationFilterSchema.shape.healthStatus.unwrap().element.options).toEqual(HEALTH_STATUSES);
  expect(S.integrationFilterSchema.shape.integrationTypes.unwrap().element.options).toEqual(
    INTEGRATION_TYPES,
  );
  expect(S.integrationFilterSchema.shape.sortDirection.unwrap().options).toEqual(SORT_DIRECTIONS);
  expect(S.integrationFilterSchema.shape.serviceProviderScope.unwrap().options).toEqual(
    SERVICE_PROVIDER_SCOPES,
  );
});
