/** The CLI's input and output as strings, for calling `main` in-process. */

export function captureIo(env: NodeJS.ProcessEnv, stdin = '') {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stdin: () => stdin,
      stdout: (s: string) => {
        out.stdout += s;
      },
      stderr: (s: string) => {
        out.stderr += s;
      },
      env,
      isTTY: false,
    },
  };
}
