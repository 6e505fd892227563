/** How a runner command reports resources that failed: after completing the others, it rejects. */
import type { Step } from "./plan";

/** A runner command. */
export type Command = "preview" | "up" | "refresh" | "destroy" | "import";

/** A resource's error as the Pulumi CLI prints it: `<type> (<name>): error: <message>`. */
export const pulumiError = (s: Pick<Step, "type" | "name" | "error">) =>
  `${s.type} (${s.name}): error: ${s.error}`;

/**
 * A step in which some resources failed: the others were completed and recorded first. The message
 * lists every failure as the Pulumi CLI prints it (the provider's own text, no gRPC status), one a
 * line; `steps` is the whole report (as the step would have returned it), each `error` the text alone.
 */
export class StepFailedError extends Error {
  constructor(
    readonly command: Command,
    readonly steps: Step[],
  ) {
    const failed = steps.filter((s) => !s.ok);
    super(
      `${command}: ${failed.length} of ${steps.length} resource(s) failed:\n${failed.map((s) => `  ${pulumiError(s)}`).join("\n")}`,
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
