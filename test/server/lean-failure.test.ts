/**
 * The typed "Lean failed" contract between tools and the pipeline: a result is not cached
 * because the tool's context was told Lean failed, never because of a message's text.
 */
import t from 'tap';
import { LeanFailure } from '../../src/backend/index.ts';
import type { ToolImpl } from '../../src/tools/types.ts';
import { makeApp, TEST_ENV } from '../helpers.ts';

const response = (errors: string[]) => ({
  okay: false,
  content: '',
  lean_messages: { errors: [], warnings: [], infos: [] },
  tool_messages: { errors, warnings: [], infos: [] },
  failed_declarations: [],
  timings: {},
});

t.test('a Lean failure reported through the context is not cached; a look-alike message text is', async (t) => {
  const check: ToolImpl<'check'> = {
    needsLean: () => false,
    async run(req, ctx) {
      if (req.content.includes('fail')) {
        ctx.leanFailed?.(new LeanFailure('crashed', 'the REPL exited', ''));
        return response(['something went wrong']);
      }
      return response(['Lean failed while elaborating (crashed): quoted by the user']);
    },
  };
  const app = await makeApp({ tools: { check } });
  t.teardown(() => app.close());
  const post = (content: string) =>
    app.inject({ method: 'POST', url: '/api/v1/check', payload: { content, environment: TEST_ENV } });
  await post('please fail\n');
  t.equal((await post('please fail\n')).headers['x-cache'], 'miss', 'the failure was not cached');
  await post('fine\n');
  t.equal((await post('fine\n')).headers['x-cache'], 'hit', 'a message text alone does not decide');
});
