#!/usr/bin/env python3
"""The public AXLE Python client at its defaults against this daemon (issue 29).

Usage: AXLE_API_URL=http://127.0.0.1:8080 [AXLE_API_KEY=…] python3 scripts/axle-client-fanout.py ENVIRONMENT N

With or without AXLE_API_KEY exported, as an AXLE user has it: lists the environments, runs
theorem2sorry with "reparse": false (no Lean needed), then N distinct such requests through the
client's own default fan-out (AXLE_MAX_CONCURRENCY, 20). Prints one JSON line: the environment
names, the single request, and for the fan-out how many succeeded and how many times the client
retried (it retries 429 and 503 only, logging each retry on the `axle.client` logger).
"""
import asyncio
import json
import logging
import sys
import time

from axle import AxleClient


class RetryCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.retries = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "Retrying" in record.getMessage():
            self.retries += 1


async def main(environment: str, n: int) -> int:
    counter = RetryCounter()
    logging.getLogger("axle.client").addHandler(counter)
    client = AxleClient()
    out: dict = {"max_concurrency": client.max_concurrency}
    try:
        out["environments"] = [e["name"] for e in await client.environments()]
        r = await client.run_one(
            "theorem2sorry", {"content": "theorem a : 1 = 1 := rfl", "environment": environment, "reparse": False}
        )
        out["theorem2sorry"] = {"content": r["content"], "request_id": r.get("info", {}).get("request_id")}
        t0 = time.monotonic()

        async def one(i: int) -> bool:
            body = {"content": f"theorem t{i} : {i} = {i} := rfl", "environment": environment, "reparse": False}
            res = await client.run_one("theorem2sorry", body)
            return f"theorem t{i}" in res["content"]

        results = await asyncio.gather(*(one(i) for i in range(n)), return_exceptions=True)
        errors = [f"{type(e).__name__}: {e}"[:200] for e in results if isinstance(e, BaseException)]
        out["fanout"] = {
            "n": n,
            "ok": sum(1 for x in results if x is True),
            "errors": errors[:3],
            "retries": counter.retries,
            "seconds": round(time.monotonic() - t0, 2),
        }
    finally:
        await client.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 500)))
