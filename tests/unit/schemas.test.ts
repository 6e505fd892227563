/** Schemas keep unknown keys, accept absent or null optional fields and unknown enum values. */
import {
  detectionSchema,
  directoryUserSchema,
  identitySchema,
  parseResponse,
  threatIndicatorPageSchema,
} from "pulumi-secops/client/schemas";
import { detection } from "secops-sim/detections";
import { directoryUsers } from "secops-sim/seed";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;
const user = directoryUsers(1, "t", 1)[0];
const full = detection(1, "case-1", "C-1", "t", 0, user) as Record<string, unknown>;

test("a fully populated detection parses and round-trips unchanged", () => {
  expect(detectionSchema.parse(full)).toEqual(full);
});

test("unknown keys are kept at every level", () => {
  const d = structuredClone(full) as Json;
  d.brandNew = { x: 1 };
  d.files[0].metadata.newThing = "kept";
  d.ips[0].metadata.privacy.newFlag = true;
  const parsed = detectionSchema.parse(d) as Json;
  expect(parsed.brandNew).toEqual({ x: 1 });
  expect(parsed.files[0].metadata.newThing).toBe("kept");
  expect(parsed.ips[0].metadata.privacy.newFlag).toBe(true);
});

test("optional fields may be null or absent, nested objects too", () => {
  const d = {
    id: "d1",
    title: null,
    endpoints: null,
    verdictSetting: null,
    processTree: { nodes: null },
    files: [{ metadata: null }],
  };
  expect(detectionSchema.parse(d)).toEqual(d);
  expect(detectionSchema.parse({ id: "d2" })).toEqual({ id: "d2" });
});

test("unknown enum values are kept (open enums)", () => {
  const d = {
    id: "d1",
    status: "REOPENED_LATER",
    verdict: "NEW_VERDICT",
    containments: ["MAILBOX"],
    artifacts: [{ type: "OAUTH_GRANT" }],
  };
  expect(detectionSchema.parse(d)).toEqual(d);
  const me = { email: "e", displayName: "d", id: "i", role: "AUDITOR", teamId: "t", parentTeamId: "p" };
  expect(identitySchema.parse(me).role).toBe("AUDITOR");
});

test("a wrong type fails with SECOPS_RESPONSE_INVALID naming the JSON path", () => {
  expect.assertions(1);
  const page = {
    data: [full, { ...full, id: "d2", files: [{ metadata: { threatNames: [{ excluded: "yes" }] } }] }],
    totalCount: 2,
  };
  expect(() =>
    parseResponse(threatIndicatorPageSchema, page, "GET", "/v1/cases/c/threat-indicators"),
  ).toThrow(
    expect.objectContaining({
      code: "SECOPS_RESPONSE_INVALID",
      field: "$.data[1].files[0].metadata.threatNames[0].excluded",
      message:
        "GET /v1/cases/c/threat-indicators: response $.data[1].files[0].metadata.threatNames[0].excluded does not fit the API schema: Invalid input: expected boolean, received string",
    }),
  );
});

test("required identity fields are enforced", () => {
  expect(
    identitySchema.safeParse({ email: "e", displayName: "d", id: "i", role: "ADMIN", teamId: "t" }).success,
  ).toBe(false);
});

test("a directory user with the cluster preview, groups and licenses parses", () => {
  expect(directoryUserSchema.parse(user)).toEqual(user);
});
