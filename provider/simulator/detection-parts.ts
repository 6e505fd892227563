/**
 * What the parts of a simulated detection are built from: the type shared by detections.ts and the
 * part builders it calls (detection-fields.ts, detection-actions.ts), kept below all three.
 */

/** What the parts of a detection are built from. */
export interface Parts {
  id: string;
  teamId: string;
  index: number;
  t: number;
  r: () => number;
  sevIdx: number;
  caseId: string;
  caseSid: string;
  directoryUser: unknown;
  node: (k: number) => Record<string, unknown>;
}
