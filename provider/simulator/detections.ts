/**
 * Seeded detections that fill every nested structure of the spec's Detection (endpoints, files with
 * metadata, processes, locations, directory users, IPs with metadata, domains, artifacts, chat-ops and
 * containment actions, user agents, verdict setting, process tree, custom and external custom
 * detections). Generated on demand from (seed, case, index) so a big case costs no memory until read.
 */
import { rng } from "./seed";
import type { Parts } from "./detection-parts";
import { SEVERITIES } from "./detection-fields";
import {
  idFields,
  integrationPlatformFields,
  ocsfDetectionFindingFields,
  endpointsPart,
  filesPart,
  processesPart,
  locationsPart,
  directoryPart,
  ipsPart,
  domainsPart,
} from "./detection-fields";
import {
  artifactsPart,
  chatOpsActionsPart,
  containmentActionsPart,
  userAgentsPart,
  verdictSettingPart,
  processTreePart,
  customDetectionPart,
  externalCustomDetectionPart,
} from "./detection-actions";

/** The detection number `index` of case `caseId`. */
export function detection(
  seed: number,
  caseId: string,
  caseSid: string,
  teamId: string,
  index: number,
  directoryUser: unknown,
) {
  const r = rng(seed * 1_000_003 + hash(caseId) + index * 7919);
  const id = `det-${caseId}-${String(index + 1).padStart(5, "0")}`;
  const t = index * 7 + Math.floor(r() * 5);
  const sevIdx = Math.floor(r() * SEVERITIES.length);
  const node = (k: number) => ({
    id: `pn-${k}`,
    parentId: k === 0 ? null : `pn-${k - 1}`,
    sourceUid: `uid-${k}`,
    cpid: String(1000 + k),
    name: k === 0 ? "explorer.exe" : "powershell.exe",
    cmdLine: k === 0 ? "explorer.exe" : 'powershell.exe -enc "SQBFAFgA"',
    path: "C:\\Windows\\System32",
    sha1: "a".repeat(40),
    sha256: "b".repeat(64),
    pid: 4000 + k,
    createdTime: 1767225600 + k,
  });
  const c: Parts = { id, teamId, index, t, r, sevIdx, caseId, caseSid, directoryUser, node };
  // Spread in order: each part draws from the same random sequence the literal did.
  return {
    ...idFields(c),
    ...integrationPlatformFields(c),
    ...ocsfDetectionFindingFields(c),
    ...endpointsPart(c),
    ...filesPart(c),
    ...processesPart(c),
    ...locationsPart(c),
    ...directoryPart(c),
    ...ipsPart(c),
    ...domainsPart(c),
    ...artifactsPart(c),
    ...chatOpsActionsPart(c),
    ...containmentActionsPart(c),
    ...userAgentsPart(c),
    ...verdictSettingPart(c),
    ...processTreePart(c),
    ...customDetectionPart(c),
    ...externalCustomDetectionPart(c),
  };
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h >>> 0;
}
