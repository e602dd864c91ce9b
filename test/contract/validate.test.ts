import t from 'tap';
import { sharedParams } from '../../src/contract/common.ts';
import { TOOLS, TOOL_NAMES, REPAIRS, type ToolName } from '../../src/contract/tools.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { ServiceError } from '../../src/errors.ts';
import { validRequest } from '../helpers.ts';

function reject(tool: ToolName, body: unknown): ServiceError {
  try {
    parseToolRequest(tool, body);
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error(`expected ${tool} to reject ${JSON.stringify(body)}`);
}

const fieldsOf = (e: ServiceError) => (e.details ?? []).map((d) => d.field);

/** A value of the wrong type for this field's schema (the first candidate it refuses). */
function wrongValue(tool: ToolName, field: string): unknown {
  const schema = (TOOLS[tool].request.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>)[field]!;
  return [42, 'x', true, [1], { a: [] }].find((v) => !schema.safeParse(v).success);
}

t.test('every spec tool plus check and AXLE’s newer extract_proof_states has a schema', async (t) => {
  t.same(TOOL_NAMES.sort(), [
    'check',
    'comparator',
    'disprove',
    'extract_decls',
    'extract_proof_states',
    'extract_theorems',
    'have2lemma',
    'have2sorry',
    'merge',
    'normalize',
    'rename',
    'repair_proofs',
    'simplify_theorems',
    'sorry2lemma',
    'theorem2lemma',
    'theorem2sorry',
    'verify_proof',
  ]);
});

for (const tool of TOOL_NAMES) {
  t.test(`${tool}: validation`, async (t) => {
    const shape = TOOLS[tool].request.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>;
    const ok = parseToolRequest(tool, validRequest(tool)) as Record<string, unknown>;
    t.equal(ok.environment, validRequest(tool).environment, 'a valid request is accepted');
    t.equal(ok.timeout_seconds, 120, 'timeout_seconds defaults to 120');
    t.equal(ok.ignore_imports, true, 'ignore_imports defaults to true');

    const required = Object.keys(shape).filter((k) => !shape[k]!.safeParse(undefined).success);
    t.ok(required.includes('environment'), 'environment is required');
    for (const field of required) {
      const body = validRequest(tool);
      delete body[field];
      t.ok(fieldsOf(reject(tool, body)).includes(field), `missing ${field} is named`);
    }
    for (const field of Object.keys(shape)) {
      const bad = wrongValue(tool, field);
      if (bad === undefined) continue;
      const e = reject(tool, { ...validRequest(tool), [field]: bad });
      t.equal(e.status, 400);
      t.ok(
        fieldsOf(e).some((f) => f === field || f.startsWith(`${field}.`)),
        `wrong type for ${field} is named (${JSON.stringify(bad)})`,
      );
    }
    for (const param of Object.keys(sharedParams).filter((p) => !(p in shape))) {
      const e = reject(tool, {
        ...validRequest(tool),
        [param]: (sharedParams as Record<string, unknown>)[param] === undefined ? 1 : true,
      });
      t.ok(fieldsOf(e).includes(param), `${param} is not accepted by ${tool} and is named`);
      t.match(e.details!.find((d) => d.field === param)!.message, `is not a parameter of ${tool}`);
    }
    if ('names' in shape && 'indices' in shape) {
      const e = reject(tool, { ...validRequest(tool), names: ['foo'], indices: [0] });
      t.ok(fieldsOf(e).includes('names') && fieldsOf(e).includes('indices'), 'names and indices together are refused');
      t.match(e.message, /only one of names and indices/);
    }
  });
}

t.test('ranges and closed lists', async (t) => {
  t.ok(fieldsOf(reject('have2lemma', { ...validRequest('have2lemma'), verbosity: 3 })).includes('verbosity'));
  t.ok(fieldsOf(reject('have2lemma', { ...validRequest('have2lemma'), verbosity: -1 })).includes('verbosity'));
  t.equal(
    (parseToolRequest('have2lemma', { ...validRequest('have2lemma'), verbosity: 1.5 }) as { verbosity: number })
      .verbosity,
    1.5,
    'a fractional verbosity is a number from 0 to 2',
  );
  t.ok(fieldsOf(reject('have2lemma', { ...validRequest('have2lemma'), verbosity: '1' })).includes('verbosity'));
  t.ok(fieldsOf(reject('have2lemma', { ...validRequest('have2lemma'), verbosity: 2.01 })).includes('verbosity'));
  t.equal(
    (parseToolRequest('have2lemma', { ...validRequest('have2lemma'), verbosity: 2 }) as { verbosity: number })
      .verbosity,
    2,
  );
  t.ok(fieldsOf(reject('theorem2lemma', { ...validRequest('theorem2lemma'), target: 'corollary' })).includes('target'));
  t.ok(
    fieldsOf(
      reject('repair_proofs', { ...validRequest('repair_proofs'), repairs: ['insert_sorries', 'make_it_work'] }),
    ).includes('repairs.1'),
  );
  t.ok(
    fieldsOf(
      reject('simplify_theorems', { ...validRequest('simplify_theorems'), simplifications: ['simplify_have_exact'] }),
    ).includes('simplifications.0'),
    'disabled simplifications are not accepted',
  );
  t.ok(
    fieldsOf(reject('normalize', { ...validRequest('normalize'), normalizations: ['sort_imports'] })).includes(
      'normalizations.0',
    ),
  );
  t.ok(fieldsOf(reject('check', { ...validRequest('check'), timeout_seconds: 0 })).includes('timeout_seconds'));
  t.ok(fieldsOf(reject('check', { ...validRequest('check'), timeout_seconds: -5 })).includes('timeout_seconds'));
  t.ok(
    fieldsOf(reject('extract_decls', { ...validRequest('extract_decls'), delab_options: { 'linter.all': true } })).some(
      (f) => f.startsWith('delab_options'),
    ),
  );
  t.ok(
    fieldsOf(reject('check', { ...validRequest('check'), global_options: { maxHeartbeats: [1] } })).includes(
      'global_options.maxHeartbeats',
    ),
  );
  t.ok(fieldsOf(reject('merge', { ...validRequest('merge'), documents: [] })).includes('documents'));
  t.ok(
    fieldsOf(
      reject('indices' in TOOLS.check.request.shape ? 'check' : 'theorem2sorry', {
        ...validRequest('theorem2sorry'),
        indices: [0.5],
      }),
    ).includes('indices.0'),
  );
});

t.test('defaults follow the spec', async (t) => {
  const r = parseToolRequest('repair_proofs', validRequest('repair_proofs'));
  t.same(r.repairs, [...REPAIRS]);
  t.same(r.terminal_tactics, ['grind']);
  t.equal(r.theorems_only, true);
  const n = parseToolRequest('normalize', validRequest('normalize'));
  t.same(n.normalizations, ['remove_sections', 'remove_duplicates', 'split_open_in_commands']);
  t.equal(n.failsafe, true);
  const h = parseToolRequest('have2lemma', validRequest('have2lemma'));
  t.same(
    [h.include_have_body, h.include_whole_context, h.reconstruct_callsite, h.verbosity, h.reparse],
    [false, true, false, 0, true],
  );
  const s = parseToolRequest('sorry2lemma', validRequest('sorry2lemma'));
  t.same([s.extract_sorries, s.extract_errors], [true, true]);
  const v = parseToolRequest('verify_proof', validRequest('verify_proof'));
  t.same([v.use_def_eq, v.verify_negation, v.mathlib_options], [true, false, false]);
  t.equal(parseToolRequest('theorem2lemma', validRequest('theorem2lemma')).target, 'lemma');
  t.equal(parseToolRequest('extract_decls', validRequest('extract_decls')).elaborate_proofs, true);
  const m = parseToolRequest('merge', validRequest('merge'));
  t.same([m.use_def_eq, m.include_alts_as_comments], [true, false]);
});

t.test('null means absent; bodies must be objects', async (t) => {
  const r = parseToolRequest('theorem2sorry', { ...validRequest('theorem2sorry'), names: null, reparse: null });
  t.equal(r.reparse, true);
  t.equal(r.names, undefined);
  for (const body of [null, [], 'text', 3]) t.equal(reject('check', body).code, 'invalid_request');
});
