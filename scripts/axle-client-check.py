#!/usr/bin/env python3
"""Run the public AXLE Python client (AxiomMath/axiom-lean-engine) against this daemon.

Usage: AXLE_API_URL=http://127.0.0.1:8080 python3 scripts/axle-client-check.py ENVIRONMENT

The `axle` package must be importable (PYTHONPATH pointing at a checkout of
axiom-lean-engine, or installed); it needs aiohttp, requests and tenacity (Debian:
python3-aiohttp python3-requests python3-tenacity). Prints one JSON line per probe:

- status: the client's health check (GET /v1/status).
- theorem2sorry: a structural request with reparse false (no Lean needed): must succeed.
- check: a Lean-backed request; on an environment that cannot run Lean it must fail
  within seconds with the daemon's message (409, which the client does not retry).
"""
import asyncio
import json
import sys
import time

from axle import AxleClient


async def main(environment: str) -> int:
    client = AxleClient()
    out = {}
    try:
        out["status"] = client.check_status()["status"]
        t0 = time.monotonic()
        r = await client.run_one("theorem2sorry", {"content": "theorem a : 1 = 1 := rfl", "environment": environment, "reparse": False})
        out["theorem2sorry"] = {"ok": True, "content": r["content"], "seconds": round(time.monotonic() - t0, 2)}
        t0 = time.monotonic()
        try:
            c = await client.check(content="theorem a : 1 = 1 := rfl", environment=environment)
            out["check"] = {"ok": True, "okay": c.okay, "seconds": round(time.monotonic() - t0, 2)}
        except Exception as e:  # the client's own exception types say how it classified the status
            out["check"] = {"ok": False, "exception": type(e).__name__, "message": str(e), "seconds": round(time.monotonic() - t0, 2)}
    finally:
        await client.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "lean-4.28.0")))
