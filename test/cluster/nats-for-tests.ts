/**
 * The cluster test files' preamble: nats-server's binary, or the file planned as a skip that
 * says why (never a pass); and one server for the whole file, started before its first test
 * and stopped after its last.
 */
import t from 'tap';
import { natsServerPath, NO_NATS_REASON, startNatsServer, type NatsServer } from './nats-server.ts';

/** The binary; undefined once the file is planned as a skip (`what`: the tests it skips, for the comment). */
export function natsServerOrSkip(what: string): string | undefined {
  const bin = natsServerPath();
  if (!bin) {
    t.comment(`skipping ${what}: ${NO_NATS_REASON}`);
    t.plan(0, `skip: ${NO_NATS_REASON}`);
  }
  return bin;
}

/** The file's server, for use inside its tests (it starts in `t.before`). */
export function natsServerForFile(bin: string): NatsServer {
  let server: NatsServer | undefined;
  t.before(async () => {
    server = await startNatsServer(bin);
  });
  t.teardown(async () => server?.stop());
  const started = () => {
    if (!server) throw new Error('the nats-server starts before the first test: use it inside a test');
    return server;
  };
  return {
    get url() {
      return started().url;
    },
    kill: () => started().kill(),
    restart: (opts) => started().restart(opts),
    stop: () => started().stop(),
  };
}
