/**
 * The public types (provider/client/api-types.ts, written by the build from the zod schemas) against
 * the schemas' own types: the type-level checks fail the typecheck when the generator or a committed
 * copy says something the schemas do not. And what the plain types give users: documented fields
 * exactly (a misspelt known name does not compile, also nested), free-form JSON that stays indexable,
 * request types that refuse unknown names, while parsed values keep the keys the API added. The
 * type-level checks run in `npm run typecheck` (jest transpiles without checking types); this run
 * checks only the values.
 */
import type { z } from "zod";
import * as S from "../../provider/client/schemas";
import type * as T from "../../provider/client/types";

/** Drops string index signatures (zod's loose objects keep unknown keys), deeply. */
type Strip<X> = X extends readonly (infer U)[]
  ? Strip<U>[]
  : X extends object
    ? { [K in keyof X as string extends K ? never : K]: Strip<X[K]> }
    : X;
type Equal<A, B> = (<V>() => V extends A ? 1 : 2) extends <V>() => V extends B ? 1 : 2 ? true : false;
/** Compiles only when the schema's output has exactly the public type's fields and types. */
const conforms = <Schema extends z.ZodType, Public>(ok: Equal<Strip<z.output<Schema>>, Strip<Public>>) => ok;

test("every public type is exactly its schema's type", () => {
  const checks = [
    conforms<typeof S.identitySchema, T.Identity>(true),
    conforms<typeof S.directoryUserSchema, T.DirectoryUser>(true),
    conforms<typeof S.groupAssignmentSchema, T.GroupAssignment>(true),
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
    // Requests: what the schema accepts.
    Equal<z.input<typeof S.directoryUserUpdateSchema>, T.DirectoryUserUpdate>(true),
    Equal<z.input<typeof S.hvaRuleCreateSchema>, T.HvaRuleCreate>(true),
    Equal<z.input<typeof S.integrationFilterSchema>, T.IntegrationFilter>(true),
  ];
  expect(checks.every(Boolean)).toBe(true);
  function Equal<A, B>(ok: Equal<A, B>): boolean {
    return ok;
  }
});

const identity = {
  ...{ email: "ada@example.test", displayName: "Ada", id: "u-1", role: "ANALYST" },
  ...{ teamId: "team-1", parentTeamId: "team-0", addedByTheApi: 1 },
};

test("response values keep the keys the API added; their types list the documented fields only", () => {
  const me: T.Identity = S.identitySchema.parse(identity);
  expect((me as T.WithUnknownKeys<T.Identity>).addedByTheApi).toBe(1);
  // @ts-expect-error rol is not a field of Identity
  expect(me.rol).toBeUndefined();
  const d: T.Detection = S.detectionSchema.parse({ id: "d-1", endpoints: [{ groups: [{}] }], raw: { a: 1 } });
  // @ts-expect-error nmae is not a field of Endpoint
  expect(d.endpoints?.[0]?.nmae).toBeUndefined();
  // @ts-expect-error endpointid is not a field of EndpointGroupAssignment
  expect(d.endpoints?.[0]?.groups?.[0]?.endpointid).toBeUndefined();
  expect(d.raw?.a).toBe(1); // free-form JSON stays a record: any key compiles
  const open: T.Role = "AUDITOR"; // open enumerations take unknown values
  expect(S.identitySchema.parse({ ...identity, role: open }).role).toBe("AUDITOR");
});

test("request types refuse unknown names, as their schemas do", () => {
  // @ts-expect-error fild is not a field of HvaRuleCreate
  const create: T.HvaRuleCreate = { fild: "name", search: "dc-*" };
  expect(S.hvaRuleCreateSchema.safeParse(create).success).toBe(false);
  // @ts-expect-error healthstatus is not a field of IntegrationFilter
  const filter: T.IntegrationFilter = { healthstatus: ["healthy"] };
  expect(S.integrationFilterSchema.safeParse(filter).success).toBe(false);
  // @ts-expect-error a known name with a value of the wrong type
  const update: T.DirectoryUserUpdate = { credentialsExposed: "no" };
  expect(S.directoryUserUpdateSchema.safeParse(update).success).toBe(false);
});
