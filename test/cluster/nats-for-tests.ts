/**
 * The cluster test files' preamble: nats-server's binary, or a skipped test that says why
 * (never a pass); and one server for the whole file, started by the file's first test and
 * stopped after its last. Both use only `t.test`, `t.comment` and `t.teardown` on the root,
 * which a grouped run scopes to the file (test/helpers/run-group.ts), so these files share a
 * process with others in `npm test` instead of paying a process start each.
 */
import t from 'tap';
import { natsServerPath, NO_NATS_REASON, startNatsServer, type NatsServer } from './nats-server.ts';

/** The binary; undefined once the file's one test is a skip that says why (`what`: the tests it skips). */
export function natsServerOrSkip(what: string): string | undefined {
  const bin = natsServerPath();
  if (!bin) {
    t.comment(`skipping ${what}: ${NO_NATS_REASON}`);
    t.test(what, { skip: NO_NATS_REASON }, async () => {});
  }
  return bin;
}

/**
 * The file's server, for use inside its tests: it starts in a test of its own, called here,
 * before the file's other tests (root tests run one after another, in order).
 */
export function natsServerForFile(bin: string): NatsServer {
  let server: NatsServer | undefined;
  t.test('the nats-server for this file starts', async (t) => {
    server = await startNatsServer(bin);
    t.match(server.url, /^nats:\/\//);
  });
  t.teardown(async () => server?.stop());
  const started = () => {
    if (!server) throw new Error('the nats-server did not start (see its test): use it inside a later test');
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
