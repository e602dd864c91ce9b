/**
 * A source the model declines to build because it would cost more than its budget (see
 * `SCOPE_ENTRY_BUDGET` in syntax/source.ts) is a problem of the input: 400 `invalid_request`, on
 * the main thread (the edge's error mapping) and on a worker thread (the task's) alike.
 */
import { serviceError, type ServiceError } from '../errors.ts';
import { SourceLimitError } from '../syntax/source.ts';

export function sourceLimitError(e: unknown): ServiceError | undefined {
  return e instanceof SourceLimitError
    ? serviceError('invalid_request', 'source_limit', { problem: e.message }, { cause: e })
    : undefined;
}
