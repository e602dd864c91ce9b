/**
 * Every error message template of the table, pinned: changing a message's wording (or adding,
 * removing or renaming a reason) is a change to what clients read, made here and in src/errors.ts
 * together. Templates too long for one source line are written in parts there; this table holds
 * each one whole, so splitting a line can never change a message.
 */
import t from 'tap';
import { ERROR_CODES } from '../src/errors.ts';

const TEMPLATES: Record<string, Record<string, string>> = {
  invalid_request: {
    cluster_unknown_tool: 'unknown tool {tool}',
    body_not_object: 'invalid request for {tool}: the body must be a JSON object',
    fields: 'invalid request for {tool}: {problems}',
    http: '{message}',
    binary_frame: 'send text frames holding JSON',
    stream_message: 'invalid stream message: {problems}; send {id, tool, request} or {id, cancel: true}',
    duplicate_id: 'id {id} is already in flight on this socket',
    cancel_unknown:
      'cannot cancel {id}: no request with that id is in flight on this socket (it finished, or never started)',
    no_theorem: 'formal_statement declares no theorem for comparator to check',
    definition_holes:
      'formal_statement has definition holes (sorried definitions: {names}); comparator {tag}, pinned for environment {env}, has none (they came with v4.30.0) and rejects a solution that fills one its theorems use: use an environment at Lean v4.30.0 or later',
    limit: '{field} {problem}',
    source_limit: 'a Lean source in this request is too costly to model: {problem}',
    unknown_state:
      'no live proof search state {state} on this connection (deleted, expired, lost, or never handed out)',
    state_limit: '{scope} holds {count}, its limit ({setting}); delete some with goal.delete first',
    tactic_too_long: 'tactic {index} has {chars} characters, more than search.maxTacticChars ({max})',
    no_declaration: 'content declares no {name}',
    no_goal: 'nothing to start from: {reason}',
  },
  bad_request: {
    parser: 'the HTTP request is malformed ({reason})',
    url: 'the URL is not validly encoded',
  },
  request_timeout: {
    receive: 'the request did not arrive in time (server.requestTimeoutMs / server.headersTimeoutMs)',
  },
  uri_too_long: {
    segment: 'a path segment is longer than the router accepts',
  },
  headers_too_large: {
    headers: 'the request line and headers exceed the 16 KiB limit',
  },
  malformed_json: {
    empty_body: 'the request body is empty; expected a JSON object',
    content_length: 'the request body length does not match Content-Length',
    body: 'the request body is not valid JSON: {reason}',
    body_as:
      'the request body is not valid JSON ({reason}); it was sent {type}, and every body is read as JSON whatever its Content-Type',
    stream_message: 'the message is not valid JSON: {reason}',
    unreadable: 'the request body could not be read as JSON',
  },
  unauthorized: {
    bad_header: 'the Authorization header must be "Bearer <API key>"',
    unknown_key: 'unknown API key',
  },
  unknown_tool: {
    tool: 'unknown tool "{tool}"; the tools are: {tools}',
  },
  not_found: {
    route: 'no route {method} {path}; tools are POST /api/v1/<tool>, the API reference is GET /docs',
    share_request:
      'no recent request {id} of yours to share: a request can be shared by the caller that made it, for sharedLinks.recentSeconds after it was answered',
    shared_link: 'no shared link {id} (it was never saved, or it expired: sharedLinks.ttlSeconds)',
    shared_links_disabled: 'shared links are disabled on this daemon (sharedLinks.enabled)',
    doc_page: 'no documentation page {page}; GET /v1/docs/pages.json lists them (raw/<slug>.md)',
  },
  method_not_allowed: {
    method: '{method} is not allowed on {path}; use {allowed}',
  },
  unknown_environment: {
    cluster_worker: 'environment {env} is not configured on worker {node}',
    environment: 'unknown environment "{name}"; GET /v1/environments lists them ({known})',
  },
  payload_too_large: {
    body: 'the request body exceeds the configured limit (server.bodyLimitBytes)',
    cluster_payload:
      "the job ({bytes} bytes) exceeds the NATS server's max_payload of {limit} bytes, the largest message the cluster can carry; send a smaller request, or raise max_payload in the NATS configuration (up to server.bodyLimitBytes)",
  },
  response_too_large: {
    bound:
      'the response {what}, over the limit of {limit} for this request (limits.responseFactor × the request size, at least limits.responseMinBytes); send a smaller request or raise the limit',
    event:
      'the stream event for this request exceeds the limit of {limit} bytes for one message (server.stream.sendHardLimitBytes)',
  },
  queue_full: {
    caller: 'too many concurrent requests for {caller}: {active} active, {queued} queued',
  },
  not_implemented: {
    cluster_worker: 'the tool {tool} is not implemented by worker {node}',
    tool: 'the tool {tool} is not implemented by this daemon yet',
  },
  environment_unavailable: {
    cluster_no_worker: 'no worker in the cluster can run Lean for environment {env}',
    cluster_not_configured: 'no live worker in the cluster has environment {env} configured',
    cluster_worker: 'environment {env} cannot run Lean on worker {node}: {reason}',
    cannot_run_lean:
      "environment {env} cannot run Lean: {reason}.{withoutLean} GET /v1/environments shows each environment's availability.",
    lean_start_failed: 'Lean failed to start for {pool}: {reason}',
    tool_build_missing: '{reason}',
  },
  overloaded: {
    cluster_claim: 'the cluster cannot take the request now: {reason}',
    cluster_no_workers: 'no worker is in the cluster now (none sent a heartbeat lately); retry when one has joined',
    cluster_unreachable: 'the cluster cannot take the request now: NATS is unreachable from this front ({reason})',
    cluster_queue: 'cannot queue the job on NATS: {reason}',
    shutting_down: '{what} is shutting down',
    mcp_sessions:
      'no MCP session can be freed: all {limit} (server.mcp.maxSessions) are running tool calls or belong to callers holding no more than you; retry later, or end unused sessions with DELETE /mcp',
    mcp_caller_sessions:
      'your {limit} MCP sessions (server.mcp.maxSessionsPerCaller) are all running tool calls; retry later, or end unused sessions with DELETE /mcp',
  },
  timeout: {
    deadline: 'the request exceeded its deadline of {seconds} s',
  },
  lean_timeout: {
    deadline: 'lean worker timeout: the request exceeded its deadline of {seconds} s while Lean ran it',
    heartbeat_budget:
      'lean worker timeout: Lean stopped a command at the heartbeat budget derived from the remaining time (maxHeartbeats); raise timeout_seconds',
  },
  lean_resource_exceeded: {
    fault: 'lean worker resource exceeded: {reason}',
  },
  cancelled: {
    cluster_front: 'cancelled by the front',
    cluster_worker_stopped: 'worker stopped',
    by_client: 'cancelled by the client',
    socket_closed: 'socket closed',
    client_disconnected: 'client disconnected',
  },
  internal: {
    unexpected: 'internal error; the daemon log has the details under this request id',
    worker_failed: 'the structural worker failed: {reason}',
  },
};

t.test('each code has exactly the pinned reasons', async (t) => {
  t.same(Object.keys(ERROR_CODES).sort(), Object.keys(TEMPLATES).sort(), 'the codes');
  for (const [code, e] of Object.entries(ERROR_CODES)) {
    t.same(Object.keys(e.messages).sort(), Object.keys(TEMPLATES[code] ?? {}).sort(), `${code}: its reasons`);
  }
});

t.test('each template is the pinned text', async (t) => {
  for (const [code, pinned] of Object.entries(TEMPLATES)) {
    const messages: Record<string, string> = ERROR_CODES[code as keyof typeof ERROR_CODES]?.messages ?? {};
    for (const [reason, text] of Object.entries(pinned)) t.equal(messages[reason], text, `${code}.${reason}`);
  }
});
