import { createInterface } from "node:readline/promises";

/**
 * A yes/no question on the terminal, for what cannot be undone. Only "y" or "yes" (any case) is yes; anything
 * else, an empty line or the end of input, is no. Callers ask only when stdin is a terminal.
 */
export async function askYesNo(question: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await Promise.race([terminal.question(`${question} [y/N] `), new Promise<string>((resolve) => terminal.once("close", () => resolve("")))]);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    terminal.close();
  }
}
