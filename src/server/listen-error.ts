/**
 * Why the daemon could not listen, as one line naming the setting to change (PORT, HOST), for the
 * operator's terminal: a busy port is their situation to resolve, not a stack trace to read.
 */
export function listenErrorLine(err: unknown, host: string, port: number): string | undefined {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const where = `${host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return (
        `lean-tool-service: cannot listen on ${where}: port ${port} is already in use (another daemon?); ` +
        `set PORT to a free port (or server.port in config/local.json), for example PORT=${port === 65535 ? 8081 : port + 1}`
      );
    case 'EACCES':
      return (
        `lean-tool-service: cannot listen on ${where}: permission denied (ports below 1024 need privileges); ` +
        'set PORT to a port above 1023 (or server.port in config/local.json)'
      );
    case 'EADDRNOTAVAIL':
      return (
        `lean-tool-service: cannot listen on ${where}: no interface has address ${host}; ` +
        'set HOST (or server.host in config/local.json), for example HOST=127.0.0.1'
      );
    default:
      return undefined;
  }
}
