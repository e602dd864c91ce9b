/** The default environment: AXLE's MCP server's rule (axle-mcp-server tests/test_default_environment.py), among available ones. */
import t from 'tap';
import { latestEnvironment } from '../../src/envs/latest.ts';

const names = (...n: string[]) => n.map((name) => ({ name }));

t.test("AXLE's cases: newest stable lean-x.y.z by version, not by text", async (t) => {
  t.equal(latestEnvironment(names('lean-4.9.0', 'lean-4.29.0', 'lean-4.28.0')), 'lean-4.29.0');
  t.equal(latestEnvironment(names('lean-4.29.0', 'lean-4.29.1', 'lean-4.28.0')), 'lean-4.29.1', 'patch breaks ties');
  t.equal(latestEnvironment(names('lean-4.21.0-rc', 'lean-4.9.0')), 'lean-4.9.0', 'release candidates ignored');
  t.equal(latestEnvironment(names('pnt-4.25.0', 'lean-4.9.0')), 'lean-4.9.0', 'other prefixes ignored');
  t.equal(latestEnvironment(names('pnt-4.25.0', 'custom-env')), 'custom-env', 'none matches: the last listed');
  t.equal(latestEnvironment([]), undefined);
});

t.test('an environment that cannot run Lean is picked only when none can', async (t) => {
  t.equal(
    latestEnvironment([
      { name: 'lean-4.30.0', available: false },
      { name: 'lean-4.29.0', available: true },
    ]),
    'lean-4.29.0',
  );
  t.equal(latestEnvironment([{ name: 'lean-4.30.0', available: false }]), 'lean-4.30.0');
});
