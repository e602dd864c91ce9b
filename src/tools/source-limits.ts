/**
 * A source the model declines to build because it would cost more than its budget (see
 * `SCOPE_ENTRY_BUDGET` in syntax/source.ts) is a problem of the input: 400 `invalid_request`, on
 * the main thread (the edge's error mapping) and on a worker thread (the task's) alike. An
 * output over the request's response bound is a 413 `response_too_large`.
 */
import { serviceError, type ServiceError } from '../errors.ts';
import { OutputLimitError } from '../syntax/edits.ts';
import { SourceLimitError } from '../syntax/source.ts';

export function sourceLimitError(e: unknown): ServiceError | undefined {
  if (e instanceof OutputLimitError) return responseTooLarge(e.chars, e.limit, true);
  return e instanceof SourceLimitError
    ? serviceError('invalid_request', 'source_limit', { problem: e.message }, { cause: e })
    : undefined;
}

/** The 413 of a response of `chars` (or more, when `predicted` before it was built) over `limit`. */
export function responseTooLarge(chars: number, limit: number, predicted: boolean): ServiceError {
  return serviceError('response_too_large', 'bound', {
    what: predicted ? `would be at least ${chars} characters` : `is ${chars} characters`,
    limit,
  });
}
