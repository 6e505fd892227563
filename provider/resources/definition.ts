/**
 * Kept only for provider/native/plugin/wire.ts, which another change rewrites (issue 41 point 4):
 * once it imports UNKNOWN from ./framework/markers, this file goes.
 */
export { UNKNOWN } from "./framework/markers";
