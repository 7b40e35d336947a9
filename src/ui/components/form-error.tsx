/** @jsxImportSource hono/jsx */
import type { Problem } from "../form-problem.ts";

/** Why a form was refused: the plain sentence, then one line per problem (ui/form-problem.ts words them). */
export function FormError(props: { problem: Problem } | { message: string }) {
  const problem: Problem = "problem" in props ? props.problem : { message: props.message, lines: [] };
  return (
    <div class="notice error" role="alert">
      <p>{problem.message}</p>
      {problem.lines.length > 0 && (
        <ul>
          {problem.lines.map((line) => (
            <li>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
