/** The command line run in this process with its output captured, for the CLI's tests. */
import { main } from '../../src/cli/main';

export interface CliRun { code: number; out: string; err: string; ms: number }

/** `physik <argv>`: exit code, stdout and stderr (lines joined), and the wall time it took. */
export async function runCli(argv: string[]): Promise<CliRun> {
  const out: string[] = [], err: string[] = [];
  const t0 = performance.now();
  const code = await main(argv, (s) => out.push(s), (s) => err.push(s));
  return { code, out: out.join('\n'), err: err.join('\n'), ms: performance.now() - t0 };
}
