/** How a runner command reports resources that failed: after completing the others, it rejects. */
import type { Step } from "./plan";

/** A runner command. */
export type Command = "preview" | "up" | "refresh" | "destroy" | "import";

/**
 * A step in which some resources failed: the others were completed and recorded first. The message
 * lists every failure; `steps` is the whole report (as the step would have returned it).
 */
export class StepFailedError extends Error {
  constructor(
    readonly command: Command,
    readonly steps: Step[],
  ) {
    const failed = steps.filter((s) => !s.ok);
    super(
      `${command}: ${failed.length} of ${steps.length} resource(s) failed:\n${failed.map((s) => `  ${s.name} (${s.op}): ${s.error}`).join("\n")}`,
    );
    this.name = "StepFailedError";
  }
}

/** The steps of a runner command, whether it succeeded or rejected with {@link StepFailedError}. */
export async function stepsOf(command: Promise<Step[]>): Promise<Step[]> {
  try {
    return await command;
  } catch (err) {
    if (err instanceof StepFailedError) return err.steps;
    throw err;
  }
}
